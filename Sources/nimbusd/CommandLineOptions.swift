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

    static let usage = """
        Usage: nimbusd [--no-daemon] [--stdout] [--verbose] [--check] [CONFIG]

        Runs the Nimbus music server in the foreground. CONFIG is an MPD-style config file;
        without one Nimbus uses ~/Music, state in ~/.local/state/nimbus and 127.0.0.1:6600.
        --check reads the config, prints its warnings and errors, and exits.
        """
}
