import Foundation
import NimbusCore
import NimbusDecoder
import NimbusLibrary
import NimbusModel
import NimbusOutput
import NimbusStorage
import NimbusServer
import NimbusStickers
import NimbusSupport
import TestSupport

/// A real server on the core loop, listening on an ephemeral 127.0.0.1 port and a Unix socket
/// in a temporary directory; stopped when the value goes away.
final class TestServer: @unchecked Sendable {
    // Invariant: `server` is only touched through onCore (the loop thread).
    private let server: Server
    let port: Int
    let directory: TemporaryDirectory
    var socketPath: String { directory.file("socket") }

    /// `musicDirectory`: serve a library of that folder (scanned before init returns).
    init(musicDirectory: String? = nil, _ configure: (inout ServerSettings) -> Void = { _ in }) throws {
        let directory = TemporaryDirectory("nimbus-server")
        var settings = ServerSettings(bindAddresses: ["127.0.0.1", directory.file("socket")], port: 0)
        settings.musicDirectory = "/srv/music"
        configure(&settings)
        let frozen = settings
        self.directory = directory
        server = try onCore {
            let context = ServerContext(
                settings: frozen, logger: .silent, idle: IdleBus(reactor: CoreActor.loop.reactor))
            context.decoders = [DecoderDescription(name: "flac", suffixes: ["flac"], mimeTypes: ["audio/flac"])]
            context.urlSchemes = ["http://", "https://"]
            if let musicDirectory {
                let library = MusicLibrary(
                    storage: LocalStorage(root: musicDirectory), registry: .standard, musicDirectory: musicDirectory,
                    databasePath: nil, logger: .silent)
                library.onEvents = { context.idle.emit($0) }
                context.library = library
                try library.update("")
                SongSources.install(in: context, library: library, registry: .standard)
            }
            context.playlists = PlaylistStore(directory: directory.path, musicDirectory: musicDirectory)
            context.stickers = try StickerStore(path: directory.file("sticker.sql"))
            context.defaultPartition.outputs = [
                OutputRecord(id: 0, configuration: OutputConfiguration(name: "silence", type: "null", mixer: .software)) {
                    NullOutput(paced: true)
                }
            ]
            let server = Server(context: context)
            try server.start()
            return server
        }
        let server = self.server
        port = try onCore { server.boundTCPPort! }
        if musicDirectory != nil {
            _ = waitUntil { (try? onCore { server.context.library?.updatingJobID == nil }) == true }
        }
    }

    deinit {
        let server = self.server
        _ = try? onCore { server.stop() }
    }

    func connect() throws -> LineClient {
        let (client, greeting) = try LineClient.connected(.tcp(host: "127.0.0.1", port: port))
        precondition(greeting == "OK MPD 0.23.5", greeting)
        return client
    }

    func connectLocal() throws -> LineClient {
        try LineClient.connected(.unix(path: socketPath)).0
    }

    /// Raises idle events as if the core had changed something; several in one call happen
    /// within one loop iteration, like the changes of one command.
    func emit(_ events: IdleEvents...) throws {
        let server = self.server
        try onCore { for event in events { server.context.idle.emit(event) } }
    }

    var clientCount: Int {
        let server = self.server
        return (try? onCore { server.clientCount }) ?? -1
    }

    var commandNames: [String] { CommandTable.standard.commands.map(\.name) }
}
