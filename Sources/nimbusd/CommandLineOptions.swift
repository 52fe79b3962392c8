import NimbusSupport

/// `nimbusd [--no-daemon] [--stdout|--stderr] [--verbose] [CONFIG]`; MPD's flags are accepted so
/// existing service files keep working. Nimbus always runs in the foreground.
struct CommandLineOptions: Equatable {
    var configPath: String?
    var logToStandardError = false
    var verbose = false
    var showVersion = false
    var showHelp = false
    /// `--check`: read the config, report what is wrong in it, exit.
    var checkOnly = false

    typealias Failure = DomainError<CommandLineOptions>

    init(arguments: [String]) throws(Failure) {
        for argument in arguments {
            switch argument {
            case "--no-daemon", "--systemd": break
            case "--stdout", "--stderr": logToStandardError = true
            case "-v", "--verbose": verbose = true
            case "-V", "--version": showVersion = true
            case "-h", "--help": showHelp = true
            case "--check": checkOnly = true
            case let option where option.hasPrefix("-"):
                throw Failure("unknown option \(option)")
            default:
                guard configPath == nil else { throw Failure("more than one config file given") }
                configPath = argument
            }
        }
    }

    /// The text of `--help`, and (through help2man, at packaging) of `man nimbusd`.
    static let usage = """
        Usage: nimbusd [--no-daemon] [--stdout] [--verbose] [--check] [CONFIG]

        Runs the Nimbus music server, which speaks the MPD protocol, in the foreground.
        CONFIG is an MPD-style config file (an existing mpd.conf works: unknown keys warn);
        without one Nimbus uses ~/Music, state in ~/.local/state/nimbus, its cache in
        ~/.cache/nimbus, and listens on 127.0.0.1:6600 (the web page on port 6680).

        Options:
          --no-daemon, --systemd  accepted for MPD's service files (always in the foreground)
          --stdout, --stderr      log to standard error even when the config names a log_file
          -v, --verbose           log every command (passwords masked)
          --check                 read the config, print its warnings and errors, and exit
          -V, --version           print the version and exit
          -h, --help              print this text and exit

        Signals: SIGTERM and SIGINT shut down cleanly (the state is saved), as does MPD's
        `kill` command. Exit status 1 means the config is broken (one line names file:line).
        Documentation: /usr/share/doc/nimbus (README.md and docs/).
        """
}
