import Foundation
import NimbusConfig
import NimbusCore
import NimbusModel
import NimbusServer
import NimbusSupport

/// The composition root: builds every service from the configuration and wires them together.
@CoreActor
final class Daemon {
    let configuration: DaemonConfiguration
    let logger: Logger
    let server: Server
    private var stopped = false

    init(configuration: DaemonConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        let idle = IdleBus(reactor: CoreActor.loop.reactor)
        let context = ServerContext(settings: Self.serverSettings(configuration), logger: logger.domain("client"), idle: idle)
        server = Server(context: context)
        context.onKill = { [unowned self] in self.shutdown(reason: "kill command") }
    }

    func start() throws(SystemError) {
        for directory in [configuration.playlistDirectory, configuration.cacheDirectory]
            + [configuration.databaseFile, configuration.stateFile, configuration.stickerFile].map(Self.parent)
        {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try server.start()
        logger.notice("Nimbus \(Version.string) ready; protocol 0.23.5")
    }

    func shutdown(reason: String) {
        guard !stopped else { return }
        stopped = true
        logger.notice("shutting down (\(reason))")
        server.stop()
        exit(0)
    }

    private static func parent(_ path: String) -> String { (path as NSString).deletingLastPathComponent }

    static func serverSettings(_ config: DaemonConfiguration) -> ServerSettings {
        ServerSettings(
            bindAddresses: config.bindAddresses,
            port: config.port,
            passwords: Dictionary(config.passwords.map { ($0.password, $0.permissions) }, uniquingKeysWith: { $1 }),
            defaultPermissions: config.defaultPermissions,
            localPermissions: config.localPermissions,
            connectionTimeout: config.connectionTimeout,
            maxConnections: config.maxConnections,
            maxCommandListSize: config.maxCommandListSize,
            maxOutputBufferSize: config.maxOutputBufferSize,
            musicDirectory: config.musicDirectory)
    }
}

enum Version {
    static let string = "0.1.0"
}
