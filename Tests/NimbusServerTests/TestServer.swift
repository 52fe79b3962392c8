import Foundation
import NimbusConfig
import NimbusDaemon
import NimbusHarness
import NimbusModel
import NimbusServer
import NimbusSupport

/// A real daemon on the core loop, built by the same assembly as `nimbusd`, listening on an
/// ephemeral 127.0.0.1 port and a Unix socket in a temporary directory, with a paced null
/// output; stopped when the value goes away.
final class TestServer: @unchecked Sendable {
    // Invariant: `daemon` is only touched through onCore (the loop thread).
    private let daemon: Daemon
    let port: Int
    let directory: TemporaryDirectory
    let musicDirectory: String
    var socketPath: String { directory.file("socket") }
    /// Where the default configuration keeps stored playlists (under the temporary home).
    var playlistDirectory: String { directory.file(".local/state/nimbus/playlists") }
    /// Set when the daemon shut itself down (`kill`).
    private let shutDown = LockedFlag()

    /// `musicDirectory`: serve a library of that folder (scanned before init returns);
    /// without one the music directory is an empty folder.
    init(musicDirectory: String? = nil, _ configure: (inout DaemonConfiguration) -> Void = { _ in }) throws {
        let directory = TemporaryDirectory("nimbus-server")
        let music = musicDirectory ?? directory.file("music")
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        var configuration = try DaemonConfiguration.from(
            ConfigFile.parse(
                """
                audio_output {
                    type "null"
                    name "silence"
                    mixer_type "software"
                }
                """), home: directory.path)
        configuration.musicDirectory = music
        configuration.bindAddresses = ["127.0.0.1", directory.file("socket")]
        configuration.port = 0
        configuration.zeroconfEnabled = false
        configuration.web.enabled = false
        // Resume positions change where `play` starts: tests of them turn them on.
        configuration.resumeMinimumLength = 0
        // The analysis pass would decode the fixture library beside every test: tests of it
        // turn it on.
        configuration.loudnessAnalysis = false
        configure(&configuration)
        let frozen = configuration, flag = shutDown
        self.directory = directory
        self.musicDirectory = music
        daemon = try onCore {
            let daemon = Daemon(configuration: frozen, logger: .silent) { flag.set() }
            try daemon.start()
            return daemon
        }
        let daemon = self.daemon
        port = try onCore { daemon.server.boundTCPPort! }
        _ = waitUntil { (try? onCore { daemon.library.updatingJobID == nil }) == true }
    }

    deinit {
        let daemon = self.daemon
        _ = try? onCore { daemon.shutdown(reason: "test finished") }
    }

    var hasShutDown: Bool { shutDown.isSet }

    func connect() throws -> LineClient {
        let (client, greeting) = try LineClient.connected(.tcp(host: "127.0.0.1", port: port))
        precondition(greeting == "OK MPD 0.24.0", greeting)
        return client
    }

    func connectLocal() throws -> LineClient {
        try LineClient.connected(.unix(path: socketPath)).0
    }

    /// Raises idle events as if the core had changed something; several in one call happen
    /// within one loop iteration, like the changes of one command.
    func emit(_ events: IdleEvents...) throws {
        let daemon = self.daemon
        try onCore { for event in events { daemon.server.context.idle.emit(event) } }
    }

    var clientCount: Int {
        let daemon = self.daemon
        return (try? onCore { daemon.server.clientCount }) ?? -1
    }

    var commandNames: [String] { CommandTable.standard.commands.map(\.name) }
}
