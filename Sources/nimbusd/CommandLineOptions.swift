import NimbusSupport

/// `nimbusd [--no-daemon] [--stdout|--stderr] [--verbose] [CONFIG]`; MPD's flags are accepted so
/// existing service files keep working. Started by hand from a terminal it detaches as mpd does;
/// under systemd, from scripts and with `--no-daemon` it stays in the foreground.
struct CommandLineOptions: Equatable {
    var configPath: String?
    /// False with `--no-daemon` or `--systemd`.
    var daemon = true
    /// `--systemd`: a service manager runs us; `pid_file` is ignored, as MPD does.
    var systemd = false
    /// `--kill`: stop the daemon `pid_file` names.
    var kill = false
    /// `--no-config`: Nimbus's defaults, no config file searched.
    var noConfig = false
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
            case "--no-daemon": daemon = false
            case "--systemd":
                daemon = false
                systemd = true
            case "--kill": kill = true
            case "--no-config": noConfig = true
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
        Usage: nimbusd [--no-daemon] [--stdout] [--verbose] [--check] [--kill] [CONFIG]

        Runs the Nimbus music server, which speaks the MPD protocol.
        CONFIG is an MPD-style config file (an existing mpd.conf works: unknown keys warn).
        Without one Nimbus reads the first of $XDG_CONFIG_HOME/nimbus/nimbusd.conf,
        /etc/nimbus/nimbusd.conf, $XDG_CONFIG_HOME/mpd/mpd.conf, ~/.mpdconf, ~/.mpd/mpd.conf
        and /etc/mpd.conf; with none (or --no-config) it uses ~/Music, state in
        ~/.local/state/nimbus, its cache in ~/.cache/nimbus, and listens on 127.0.0.1:6600
        (the web page on port 6680). Started from a terminal it detaches once it is ready,
        as mpd does; under systemd and from scripts it stays in the foreground.

        Options:
          --no-daemon             stay in the foreground
          --systemd               run under systemd (foreground, pid_file ignored)
          --no-config             do not look for a config file: use the defaults
          --kill                  stop the daemon whose process id pid_file holds
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
