import NimbusSupport
import NimbusInput
import NimbusModel

/// A picture embedded in a song (FLAC PICTURE, ID3 APIC, Vorbis METADATA_BLOCK_PICTURE).
public struct Picture: Sendable, Equatable {
    public let mimeType: String?
    public let data: [UInt8]

    public init(mimeType: String?, data: [UInt8]) {
        self.mimeType = mimeType
        self.data = data
    }
}

/// What a scan should collect beyond format and tags.
public struct ScanOptions: Sendable {
    /// Raw `key: value` pairs for `readcomments`.
    public var comments = false
    /// The first embedded picture, for `readpicture`.
    public var picture = false

    public init(comments: Bool = false, picture: Bool = false) {
        self.comments = comments
        self.picture = picture
    }
}

/// The result of reading a file's metadata.
public struct ScanResult: Sendable {
    public var format: AudioFormat?
    public var tag = Tag()
    public var comments: [(key: String, value: String)] = []
    /// A CUE sheet embedded in the file (a `CUESHEET` comment, as EAC and foobar2000 write
    /// it): MPD then lists the file as a playlist of its tracks too.
    public var cueSheet: String?
    public var picture: Picture?
    public var replayGain = ReplayGainInfo()
    public var mixRamp = MixRampTags()

    public init() {}
}

public typealias DecoderError = DomainError<DecoderDomain>
public enum DecoderDomain {}

/// One audio format: which files it claims (by suffix, or MIME type for a stream), how it reads
/// their metadata, and how it decodes them for the player. Adding a format is one plugin in
/// `Plugins/` and one line in `DecoderRegistry.standard`.
public protocol DecoderPlugin: Sendable {
    var name: String { get }
    var suffixes: [String] { get }
    var mimeTypes: [String] { get }
    func scan(_ stream: any InputStream, options: ScanOptions) throws(DecoderError) -> ScanResult
    /// Opens the stream for playback.
    func openDecoder(_ stream: any InputStream) throws(DecoderError) -> any AudioDecoder
}

/// The plugins in priority order, handed in by the daemon (never discovered by reflection).
public struct DecoderRegistry: Sendable {
    public let plugins: [any DecoderPlugin]
    /// Lower-cased suffix → the plugins claiming it, in priority order: an update asks for
    /// every file, and FFmpeg alone claims a few hundred suffixes.
    private let bySuffix: [String: [Int]]

    public init(_ plugins: [any DecoderPlugin]) {
        self.plugins = plugins
        var bySuffix: [String: [Int]] = [:]
        for (index, plugin) in plugins.enumerated() {
            for suffix in Set(plugin.suffixes.map { $0.lowercased() }) { bySuffix[suffix, default: []].append(index) }
        }
        self.bySuffix = bySuffix
    }

    /// Nimbus's plugins: libmpg123, libvorbisfile, libFLAC (native and in Ogg), libopusfile,
    /// the native WAV reader, libmpcdec, and FFmpeg for the rest.
    public static let standard = DecoderRegistry([
        MP3Plugin(), VorbisPlugin(), FLACPlugin(), OpusPlugin(), FLACPlugin(ogg: true), WAVPlugin(), MusepackPlugin(), FFmpegPlugin(),
    ])

    /// The plugin for a suffix; when several claim it (`.ogg`: Vorbis, then Opus), one that
    /// tries them in order, as MPD does, so an Opus stream in a `.ogg` file plays.
    public func plugin(forSuffix suffix: String) -> (any DecoderPlugin)? {
        guard let claiming = bySuffix[suffix] ?? bySuffix[suffix.lowercased()] else { return nil }
        return claiming.count > 1 ? FirstThatFits(claiming.map { plugins[$0] }) : plugins[claiming[0]]
    }

    public func plugin(forPath path: String) -> (any DecoderPlugin)? {
        let utf8 = path.utf8
        guard let dot = utf8.lastIndex(of: UInt8(ascii: ".")), !utf8[dot...].contains(UInt8(ascii: "/")) else { return nil }
        return plugin(forSuffix: String(path[path.index(after: dot)...]))
    }

    public func supports(_ path: String) -> Bool { plugin(forPath: path) != nil }

    /// The plugin for a `Content-Type` (`audio/mpeg; charset=x` → the MP3 plugin), for a URL
    /// whose path names no format.
    public func plugin(forMimeType type: String) -> (any DecoderPlugin)? {
        let essence = String(type.prefix { $0 != ";" }.filter { $0 != " " && $0 != "\t" }).lowercased()
        let claiming = plugins.filter { $0.mimeTypes.contains(essence) }
        return claiming.count > 1 ? FirstThatFits(claiming) : claiming.first
    }
}

/// Several plugins for one suffix: each is tried from the stream's start until one accepts it.
struct FirstThatFits: DecoderPlugin {
    let candidates: [any DecoderPlugin]

    init(_ candidates: [any DecoderPlugin]) { self.candidates = candidates }

    var name: String { candidates[0].name }
    var suffixes: [String] { candidates[0].suffixes }
    var mimeTypes: [String] { candidates[0].mimeTypes }

    func scan(_ stream: any InputStream, options: ScanOptions) throws(DecoderError) -> ScanResult {
        try first(stream) { plugin throws(DecoderError) in try plugin.scan(stream, options: options) }
    }

    func openDecoder(_ stream: any InputStream) throws(DecoderError) -> any AudioDecoder {
        try first(stream) { plugin throws(DecoderError) in try plugin.openDecoder(stream) }
    }

    /// The first plugin's error is the one reported: a broken `.ogg` is a broken Vorbis file.
    private func first<T>(_ stream: any InputStream, _ body: (any DecoderPlugin) throws(DecoderError) -> T) throws(DecoderError) -> T {
        var failure: DecoderError?
        for plugin in candidates {
            do {
                try? stream.seek(to: 0)
                return try body(plugin)
            } catch {
                if failure == nil { failure = error }
                guard stream.isSeekable else { break }
            }
        }
        throw failure ?? DecoderError("no decoder accepted the stream")
    }
}
