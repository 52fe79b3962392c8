import Foundation
import Glibc
import NimbusSupport

// `nimbus`: what MPD clients cannot do for nimbusd. It reads the daemon's config file and
// finds the running daemon as mpc does (MPD_HOST, MPD_PORT).

signal(SIGPIPE, SIG_IGN)

let usage = """
    usage: nimbus authorize ACCOUNT [--config FILE]
      Signs in to the cloud account named ACCOUNT in the config file's cloud { } blocks and
      saves its token (or a WebDAV password) where nimbusd reads it; a running nimbusd takes
      it up at once. FILE defaults to /etc/nimbus/nimbusd.conf.
    """

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
    print(usage)
    exit(arguments.isEmpty ? 2 : 0)
}
var configPath = "/etc/nimbus/nimbusd.conf"
if let index = arguments.firstIndex(of: "--config") {
    guard index + 1 < arguments.count else { Console.fail("--config needs a file") }
    configPath = arguments[index + 1]
    arguments.removeSubrange(index...(index + 1))
}
switch arguments.first {
case "authorize":
    guard arguments.count == 2 else { Console.fail("name the account to sign in to\n\(usage)") }
    exit(Authorize(account: arguments[1], configPath: configPath).run())
default:
    Console.fail("unknown command \"\(arguments[0])\"\n\(usage)")
}
