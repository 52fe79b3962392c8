import Foundation
import NimbusSupport
import NimbusEncoder
import NimbusModel

/// MPD's httpd output: the music as one endless HTTP stream (`http://box:8000/`) for phones,
/// browsers and other rooms. Playback is paced by a clock, as the fifo output's; the encoder
/// runs on the output thread and listeners are served by `StreamServer`'s own thread. The
/// format is fixed (44100:16:2 unless `format` says otherwise), so song changes never restart
/// the stream: listeners stay connected and hear the next song, announced by ICY metadata.
/// With `always_on`, pauses and stops send silence and keep listeners connected.
public final class HTTPDOutput: AudioOutput, @unchecked Sendable {
    // Invariant: `encoder`, `openFormat` and `idleSince` are only touched with `lock` held;
    // the rest belongs to the output thread.
    private let server: StreamServer
    private let makeEncoder: (AudioFormat) throws(OutputError) -> any Encoder
    private let alwaysOn: Bool
    /// The rate the encoder needs (Opus: 48 kHz), whatever `format` says.
    private let encoderRate: UInt32?
    private let clock = NullOutput(paced: true)
    /// Guards the encoder: the keep-alive thread encodes silence while nothing plays.
    private let lock = NSLock()
    private var encoder: (any Encoder)?
    private var openFormat: AudioFormat?
    private var idleSince: Date?
    private var keepAlive: Thread?

    init(
        server: StreamServer, alwaysOn: Bool, encoderRate: UInt32?,
        makeEncoder: @escaping (AudioFormat) throws(OutputError) -> any Encoder
    ) {
        self.server = server
        self.encoderRate = encoderRate
        self.alwaysOn = alwaysOn
        self.makeEncoder = makeEncoder
    }

    public func open(_ format: AudioFormat) throws(OutputError) -> AudioFormat {
        let wanted = AudioFormat(sampleRate: encoderRate ?? format.sampleRate, sample: .s16, channels: min(format.channels, 2))
        let reused = lock.withLock { () -> Bool in
            idleSince = nil
            return encoder != nil && openFormat == wanted
        }
        if !reused {
            let made = try makeEncoder(wanted)
            lock.withLock {
                encoder = made
                openFormat = wanted
            }
            server.start(contentType: made.contentType, header: made.header)
        }
        if alwaysOn, keepAlive == nil { startKeepAlive() }
        return try clock.open(wanted)
    }

    public func play(_ pcm: UnsafeRawBufferPointer) throws(OutputError) {
        try clock.play(pcm)
        lock.lock()
        idleSince = nil
        let bytes: [UInt8]
        do {
            bytes = try encoder?.encode(pcm) ?? []
        } catch {
            lock.unlock()
            throw OutputError(error.message)
        }
        let seconds = openFormat.map { Double(pcm.count / max($0.frameBytes, 1)) / Double($0.sampleRate) } ?? 0
        lock.unlock()
        server.broadcast(bytes, seconds: seconds)
    }

    public func songStarted(title: String?) {
        if let title { server.setTitle(title) }
    }

    public func drain() {}
    public func cancel() { clock.cancel() }
    public func pause() -> Bool {
        lock.withLock { idleSince = Date() }
        return true
    }
    public func resume() { lock.withLock { idleSince = nil } }

    /// Stopped: without `always_on` the stream ends and listeners are let go (MPD's way);
    /// with it, silence goes on and so does the stream.
    public func close() {
        clock.close()
        if alwaysOn {
            lock.withLock { idleSince = Date() }
            return
        }
        let rest = lock.withLock { () -> [UInt8] in
            defer {
                encoder = nil
                openFormat = nil
            }
            return encoder?.finish() ?? []
        }
        server.broadcast(rest)
        server.end()
    }

    public var delayFrames: Int { clock.delayFrames }
    public func interrupt() { clock.interrupt() }

    /// A tenth of a second of silence every tenth of a second while nothing plays.
    private func startKeepAlive() {
        keepAlive = DaemonThread.start(name: "httpd-silence") { [weak self] in
            while let self {
                Thread.sleep(forTimeInterval: 0.1)
                let bytes = self.lock.withLock { () -> [UInt8] in
                    guard let idle = self.idleSince, Date().timeIntervalSince(idle) > 0.2, let format = self.openFormat,
                        let encoder = self.encoder
                    else { return [] }
                    let silence = [UInt8](repeating: 0, count: Int(format.sampleRate) / 10 * format.frameBytes)
                    return (try? silence.withUnsafeBytes { try encoder.encode($0) }) ?? []
                }
                self.server.broadcast(bytes, seconds: 0.1)
            }
        }
    }
}

/// `type "httpd"`, with MPD's settings: `port` (8000), `bind_to_address`, `encoder` (vorbis,
/// opus, flac, lame, wave), `quality` or `bitrate` (vorbis, lame; opus: `bitrate`,
/// `complexity`, `signal`), `compression` (flac), `max_clients`
/// (0: no limit), `always_on`, `genre`, `website`. The listening socket opens with the
/// daemon, so a listener can connect before playback starts and hears it when it does.
public struct HTTPDOutputPlugin: OutputPlugin {
    public let type = "httpd"
    public init() {}

    public func configure(_ configuration: OutputConfiguration) throws(OutputError) -> OutputDefinition {
        let settings = configuration.settings
        let port = Int(settings["port"] ?? "8000") ?? 8000
        guard (1...65535).contains(port) else { throw OutputError("httpd output \"\(configuration.name)\": bad port \"\(settings["port"] ?? "")\"") }
        let kind = settings["encoder"] ?? "vorbis"
        let encoders = EncoderRegistry.standard
        guard let plugin = encoders.plugin(named: kind) else {
            throw OutputError(
                "httpd output \"\(configuration.name)\": encoder \"\(kind)\" is not available (\(encoders.names.joined(separator: ", ")))")
        }
        let encoderSettings = EncoderSettings(settings)
        let make: @Sendable (AudioFormat) throws(OutputError) -> any Encoder = { format throws(OutputError) in
            do throws(EncoderError) { return try plugin.make(format, encoderSettings) } catch { throw OutputError(error.message) }
        }
        let server = try StreamServer(
            address: settings["bind_to_address"] ?? "any", port: port, maxClients: Int(settings["max_clients"] ?? "0") ?? 0,
            name: configuration.name, genre: settings["genre"], website: settings["website"])
        let alwaysOn = configuration.flag("always_on", default: false)
        let box = ServerBox(server)
        return OutputDefinition(defaultFormat: AudioFormatPattern(sampleRate: 44100, sample: .s16, channels: 2)) {
            HTTPDOutput(server: box.server, alwaysOn: alwaysOn, encoderRate: plugin.rates?.first, makeEncoder: make)
        }
    }
}

/// The server, handed to the output thread that creates the output.
private final class ServerBox: Sendable {
    let server: StreamServer
    init(_ server: StreamServer) { self.server = server }
}
