import NimbusModel

/// What an encoder is told: MPD's settings for it (`quality`, `bitrate`, `complexity`,
/// `signal`, `compression` as an `encoder` block or an output's lines write them), and
/// whether it makes a file rather than an endless stream.
public struct EncoderSettings: Sendable {
    public var values: [String: String]
    /// A file (a transcode): `some(samples)` with the number of frames it will be given when
    /// known, `some(nil)` when not; nil for a stream. A file's end is trimmed exactly (Opus)
    /// and its header says its length (MP3).
    public var file: Int64??

    public init(_ values: [String: String] = [:], file: Int64?? = nil) {
        self.values = values
        self.file = file
    }

    public subscript(_ name: String) -> String? { values[name] }
}

/// One encoder as MPD's encoder plugins list them (`src/encoder/EncoderList.cxx`): its name in
/// a config, what it makes, what it takes, and how to make one.
public struct EncoderPlugin: Sendable {
    public let name: String
    public let contentType: String
    /// The file suffix of what it makes.
    public let suffix: String
    /// The only rates it takes (nil: any).
    public let rates: [UInt32]?
    /// Floats as well as 16-bit samples (16 bits is every encoder's contract).
    public let takesFloats: Bool
    /// How `bitrate` is counted in its settings: 1000 for bit/s (Opus, as MPD reads it), 1 for kbit/s.
    public let bitrateUnit: Int
    public let make: @Sendable (_ format: AudioFormat, _ settings: EncoderSettings) throws(EncoderError) -> any Encoder

    /// Settings for a constant bit rate of `kbps`, in this encoder's own units.
    public func constantBitrate(_ kbps: Int) -> [String: String] { ["bitrate": String(kbps * bitrateUnit)] }

    /// The nearest format it takes to `format` (its rate, 16 bits unless floats are welcome).
    public func fitted(_ format: AudioFormat, floats: Bool = false) -> AudioFormat {
        let rate = rates.map { rates in rates.contains(format.sampleRate) ? format.sampleRate : rates[0] } ?? format.sampleRate
        return AudioFormat(sampleRate: rate, sample: floats && takesFloats ? .float : .s16, channels: min(format.channels, 2))
    }
}

/// Every encoder, as one list: the httpd output, the transcoder and the outputs that encode
/// find them here by name, and `--version` lists them. A new encoder is one file and one line.
public struct EncoderRegistry: Sendable {
    public let plugins: [EncoderPlugin]

    public init(_ plugins: [EncoderPlugin]) { self.plugins = plugins }

    public func plugin(named name: String) -> EncoderPlugin? { plugins.first { $0.name == name } }

    public var names: [String] { plugins.map(\.name) }

    public static let standard = EncoderRegistry([
        EncoderPlugin(name: "wave", contentType: "audio/wav", suffix: "wav", rates: nil, takesFloats: false, bitrateUnit: 1) { format, _ in
            WaveEncoder(format)
        },
        EncoderPlugin(name: "flac", contentType: "audio/flac", suffix: "flac", rates: nil, takesFloats: false, bitrateUnit: 1) {
            format, settings throws(EncoderError) in
            try FLACEncoder(format, compression: UInt32(settings["compression"] ?? "5") ?? 5)
        },
        EncoderPlugin(name: "vorbis", contentType: "audio/ogg", suffix: "ogg", rates: nil, takesFloats: false, bitrateUnit: 1) {
            format, settings throws(EncoderError) in
            try VorbisEncoder(format, quality: settings["quality"].flatMap(Float.init), bitrate: settings["bitrate"].flatMap(Int.init))
        },
        EncoderPlugin(name: "opus", contentType: "audio/ogg", suffix: "opus", rates: [OpusEncoder.rate], takesFloats: true, bitrateUnit: 1000) {
            format, settings throws(EncoderError) in
            let encoder = try OpusEncoder(
                format, bitrate: settings["bitrate"], complexity: Int32(settings["complexity"] ?? "10") ?? 10,
                signal: settings["signal"] ?? (settings.file != nil ? "music" : nil))
            encoder.trimsEnd = settings.file != nil
            return encoder
        },
        EncoderPlugin(name: "lame", contentType: "audio/mpeg", suffix: "mp3", rates: nil, takesFloats: false, bitrateUnit: 1) {
            format, settings throws(EncoderError) in
            try LameEncoder(format, quality: settings["quality"].flatMap(Float.init), bitrate: settings["bitrate"].flatMap(Int.init), file: settings.file)
        },
        EncoderPlugin(name: "aac", contentType: "audio/aac", suffix: "aac", rates: nil, takesFloats: false, bitrateUnit: 1) {
            format, settings throws(EncoderError) in
            try AACEncoder(format, kbps: Int(settings["bitrate"] ?? "160") ?? 160)
        },
    ])
}
