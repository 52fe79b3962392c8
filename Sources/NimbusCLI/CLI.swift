import Foundation
import Glibc
import NimbusSupport

/// `nimbus`: what MPD clients cannot do for nimbusd, as a client of its protocol. It finds the
/// running daemon as mpc does (--host/--port, MPD_HOST, MPD_PORT, else the config file's
/// address). A library so that one binary can serve both names: the package installs
/// `nimbus` as a link to `nimbusd`, which carries Foundation and its ICU data only once.
public enum CLI {
    static let usage = """
        usage: nimbus COMMAND [--config FILE] [--host HOST] [--port PORT]
          authorize ACCOUNT   have nimbusd sign in to the cloud account ACCOUNT: shows the code
                              to enter or the address to open (or asks for the password) and
                              waits until you confirmed; Ctrl-C cancels the sign-in
          signout ACCOUNT     forget the account's sign-in (downloads in progress stop; songs
                              already kept offline stay and play)
          accounts            every cloud account: state, sign-in, user, songs, cache, update
          accounts types      the kinds of account and what each needs
          accounts add NAME TYPE [--KEY VALUE]…
                              add a cloud account to the running nimbusd (kept across restarts),
                              e.g. accounts add cloud nextcloud --url https://cloud.example.com
          accounts remove NAME
                              remove an account added so: its songs, pins, cache and sign-in
          offline add URI…    keep songs, folders or stored playlists on disk for offline use
                              (--playlist: the URIs are stored playlists)
          offline remove URI… stop keeping them (their bytes become ordinary cache)
          offline list [URI…] the pins and their downloads, with progress
          offline pause|resume|retry [URI…]
                              one pin's downloads, or all of them
          --wait              (offline add, resume, retry) wait until the pins are complete
          podcasts add URL…   subscribe to podcast feeds (each show becomes podcasts/SHOW)
          podcasts remove NAME…|list|refresh [NAME]
                              unsubscribe, list the shows, read the feeds again
          podcasts import FILE.opml | export
                              subscriptions in and out as OPML, as podcast apps keep them
          analysis [status]   the loudness analysis: a progress bar and counts
          analysis now [URI]  measure a song, folder or cloud folder now (--wait: until done)
          analysis wait       draw the progress until nothing is left to measure
          loudness URI        a song's measured loudness, gains and peaks
          sleep TIME|end|off  fade out and pause after TIME (30m, 1h, 90s; plain numbers are
                              minutes), at the end of this song, or cancel the timer
        FILE defaults to /etc/nimbus/nimbusd.conf; HOST and PORT to MPD_HOST and MPD_PORT, as
        mpc finds MPD (HOST may be password@host or a socket path).
        """

    /// Runs the command line `arguments` (without the program name) and exits.
    public static func run(_ arguments: [String]) -> Never {
        signal(SIGPIPE, SIG_IGN)
        if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            exit(arguments.isEmpty ? 2 : 0)
        }
        let options = Options(arguments)
        switch options.words.first {
        case "authorize":
            guard options.words.count == 2 else { Console.fail("name the account to sign in to\n\(usage)") }
            exit(Authorize(account: options.words[1], options: options).run())
        case "signout":
            guard options.words.count == 2 else { Console.fail("name the account to sign out of\n\(usage)") }
            _ = DaemonLink.required(options).fields("signout " + DaemonLink.quoted(options.words[1]), failing: "cannot sign out")
            Console.say("Signed out of \(options.words[1]).")
            exit(0)
        case "accounts":
            exit(Accounts(options: options).run())
        case "offline":
            exit(Offline(options: options).run())
        case "sleep":
            exit(Sleep(options: options).run())
        case "analysis":
            exit(Analysis(options: options).run())
        case "loudness":
            exit(Analysis.loudness(options))
        case "podcasts":
            exit(Podcasts(options: options).run())
        case let word?:
            Console.fail("unknown command \"\(word)\"\n\(usage)")
        case nil:
            Console.fail(usage)
        }
    }
}
