import Glibc
import NimbusEncoder
import NimbusModel

/// MPD's `recorder` output: what plays, encoded into the file at `path` with any encoder of
/// the registry (`encoder "flac"`, `"vorbis"` (the default), `"opus"`, `"lame"`, `"wave"`,
/// `"aac"`, with their settings as the httpd output takes them). The file is created when
/// playback opens the output and completed when it closes: the encoder's end written, and a
/// header that could only be known at the end (an MP3's LAME tag) put in place. Like MPD's
/// recorder it is not paced: as the only output, a song records as fast as it decodes.
public final class RecorderOutput: AudioOutput {
    private let path: String
    private let encoders: EncoderPlugin
    private let settings: EncoderSettings
    private var file: Int32 = -1
    private var encoder: (any Encoder)?

    init(path: String, encoders: EncoderPlugin, settings: EncoderSettings) {
        self.path = path
        self.encoders = encoders
        self.settings = settings
    }

    deinit { close() }

    public func open(_ format: AudioFormat) throws(OutputError) -> AudioFormat {
        close()
        let wanted = encoders.fitted(format)
        let made: any Encoder
        do throws(EncoderError) { made = try encoders.make(wanted, settings) } catch { throw OutputError(error.message) }
        file = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw OutputError("Failed to create \"\(path)\": \(String(cString: strerror(errno)))") }
        encoder = made
        try write(made.header)
        return wanted
    }

    public func play(_ pcm: UnsafeRawBufferPointer) throws(OutputError) {
        guard let encoder else { return }
        let bytes: [UInt8]
        do throws(EncoderError) { bytes = try encoder.encode(pcm) } catch { throw OutputError(error.message) }
        try write(bytes)
    }

    private func write(_ bytes: [UInt8]) throws(OutputError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(file, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw OutputError("Failed to write \"\(path)\": \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    public func drain() {}
    public func cancel() {}
    public func pause() -> Bool { true }
    public func resume() {}

    /// The file completed: the encoder's last bytes, then the header it could only know now.
    public func close() {
        guard file >= 0 else { return }
        if let encoder {
            try? write(encoder.finish())
            if let header = encoder.finalHeader {
                _ = header.withUnsafeBytes { pwrite(file, $0.baseAddress!, header.count, 0) }
            }
        }
        encoder = nil
        Glibc.close(file)
        file = -1
    }

    public var delayFrames: Int { 0 }
}

/// `type "recorder"`: `path` (required) and `encoder` with its settings. MPD's `format_path`
/// (a file per song named from its tags) is refused with a clear error for now.
public struct RecorderOutputPlugin: OutputPlugin {
    public let type = "recorder"
    public init() {}

    public func configure(_ configuration: OutputConfiguration) throws(OutputError) -> OutputDefinition {
        let settings = configuration.settings
        guard let path = settings["path"], !path.isEmpty else {
            if settings["format_path"] != nil {
                throw OutputError("recorder output \"\(configuration.name)\": format_path is not supported yet; give \"path\"")
            }
            throw OutputError("recorder output \"\(configuration.name)\": \"path\" not specified")
        }
        let kind = settings["encoder"] ?? "vorbis"
        let registry = EncoderRegistry.standard
        guard let plugin = registry.plugin(named: kind) else {
            throw OutputError(
                "recorder output \"\(configuration.name)\": encoder \"\(kind)\" is not available (\(registry.names.joined(separator: ", ")))")
        }
        let encoderSettings = EncoderSettings(settings, file: .some(nil))
        return OutputDefinition { RecorderOutput(path: path, encoders: plugin, settings: encoderSettings) }
    }
}
