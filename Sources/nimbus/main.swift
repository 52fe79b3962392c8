import Foundation
import Glibc
import NimbusSupport

// `nimbus`: what MPD clients cannot do for nimbusd. It reads the daemon's config file and
// finds the running daemon as mpc does (--host/--port, MPD_HOST, MPD_PORT).

signal(SIGPIPE, SIG_IGN)

let usage = """
    usage: nimbus COMMAND [--config FILE] [--host HOST] [--port PORT]
      authorize ACCOUNT   sign in to the cloud account named ACCOUNT in the config file's
                          cloud { } blocks and save its token (or a WebDAV password) where
                          nimbusd reads it; a running nimbusd takes it up at once
      accounts            every cloud account: state, user, songs, cache, last update
      offline add URI…    keep songs, folders or stored playlists on disk for offline use
                          (--playlist: the URIs are stored playlists)
      offline remove URI… stop keeping them (their bytes become ordinary cache)
      offline list [URI…] the pins and their downloads, with progress
      offline pause|resume|retry [URI…]
                          one pin's downloads, or all of them
      --wait              (offline add, resume, retry) wait until the pins are complete
    FILE defaults to /etc/nimbus/nimbusd.conf; HOST and PORT to MPD_HOST and MPD_PORT, as
    mpc finds MPD (HOST may be password@host or a socket path).
    """

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
    print(usage)
    exit(arguments.isEmpty ? 2 : 0)
}
let options = Options(arguments)
switch options.words.first {
case "authorize":
    guard options.words.count == 2 else { Console.fail("name the account to sign in to\n\(usage)") }
    exit(Authorize(account: options.words[1], configPath: options.configPath, options: options).run())
case "accounts":
    exit(Accounts(options: options).run())
case "offline":
    exit(Offline(options: options).run())
case let word?:
    Console.fail("unknown command \"\(word)\"\n\(usage)")
case nil:
    Console.fail(usage)
}
