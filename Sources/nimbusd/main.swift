import Dispatch
import Foundation
import Glibc
import NimbusCLI
import NimbusConfig
import NimbusDaemon
import NimbusProtocol
import NimbusSupport

// Installed as `nimbus` too (a link): then it is the companion command line.
if CommandLine.arguments.first.map({ ($0 as NSString).lastPathComponent }) == "nimbus" {
    CLI.run(Array(CommandLine.arguments.dropFirst()))
}

signal(SIGPIPE, SIG_IGN)
raiseDescriptorLimit()
Heap.limitArenas(1)

/// Each client is a descriptor; lift the soft limit to the hard one so a busy server is not
/// stopped at 1024 connections by default settings.
func raiseDescriptorLimit() {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("nimbusd: \(message)\n".utf8))
    PidFile.remove(Running.pidFile)
    exit(1)
}

let options: CommandLineOptions
do {
    options = try CommandLineOptions(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    fail("\(error.description)\n\(CommandLineOptions.usage)")
}
if options.showHelp {
    print(CommandLineOptions.usage)
    exit(0)
}
if options.showVersion {
    print("Nimbus \(Version.string) (MPD protocol \(ProtocolVersion.current))")
    print(PluginList.text)
    exit(0)
}

let environment = ProcessInfo.processInfo.environment
let configPath = options.configPath
    ?? (options.noConfig ? nil : ConfigSearch.find(home: PathExpansion.currentHome(), environment: environment))
var configuration: DaemonConfiguration
do {
    configuration = try configPath.map { try DaemonConfiguration.from(ConfigFile.load(path: $0)) }
        ?? DaemonConfiguration.defaults()
} catch {
    fail(String(describing: error))
}
if options.kill {
    switch PidFile.kill(configuration.pidFile) {
    case .success: exit(0)
    case .failure(let error): fail(error.description)
    }
}
if options.systemd { configuration.pidFile = nil }
if options.logToStandardError { configuration.logFile = nil }
if options.checkOnly {
    for warning in configuration.warnings { print("warning: \(warning)") }
    let outputs = OutputCheck.problems(configuration.audioOutputs)
    for warning in outputs.warnings { print("warning: \(warning)") }
    guard outputs.usable else {
        print("error: \(configPath ?? "defaults"): no audio_output Nimbus can play on")
        exit(1)
    }
    print("\(configPath ?? "defaults"): OK")
    exit(0)
}
if options.verbose { configuration.logLevel = .debug }

// Before any thread exists (fork() copies only the calling thread) and any file is open.
if Detach.shouldDetach(options, environment: environment) {
    Detach.begin(keepStandardError: configuration.logFile == nil)
}

let logFile: LogFile
do {
    logFile = try configuration.logFile.map { path throws(SystemError) in try LogFile(path: path) }
        ?? LogFile.standardError
} catch {
    fail(String(describing: error))
}
let logger = Logger(level: configuration.logLevel, sink: { logFile.write($0) })
for warning in configuration.warnings { logger.warning("config: \(warning)") }
if let configPath { logger.info("config: read \(configPath)") }

let pidFile = configuration.pidFile
if let pidFile {
    do {
        try PidFile.write(pidFile)
        Running.pidFile = pidFile
    } catch {
        fail("pid_file: \(error.description)")
    }
}

/// The running daemon, for signal handlers that may fire before start-up finished.
@CoreActor
enum Running {
    static var daemon: Daemon?
    /// Set once written, so a failing start or a shutdown removes it.
    nonisolated(unsafe) static var pidFile: String?
}

let activated = SocketActivation.listeners(environment: environment)
let startup = DispatchSemaphore(value: 0)
let finalConfiguration = configuration
SignalHandlers.install { name in
    Task { @CoreActor in
        guard let daemon = Running.daemon else { exit(0) }
        daemon.shutdown(reason: name)
    }
}
Task { @CoreActor in
    let daemon = Daemon(configuration: finalConfiguration, logger: logger) {
        PidFile.remove(Running.pidFile)
        exit(0)
    }
    Running.daemon = daemon
    do {
        try daemon.start(activated: activated)
    } catch {
        fail(String(describing: error))
    }
    startup.signal()
}
startup.wait()
Detach.ready()
dispatchMain()
