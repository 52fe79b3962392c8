import Glibc
import NimbusDecoder
import NimbusInput
import NimbusModel
import NimbusPlayer
import NimbusStorage
import NimbusSupport

/// The one place songs are opened: library files through the music storage (local folder or
/// cloud mount), files named by absolute path (local clients only), and URLs through the
/// range cache. The player opens queued songs through it; the server asks it for songs outside
/// the library and for a song's artwork and raw metadata.
public final class SongSources: SongOpening {
    static let remoteSchemes = ["http", "https"]

    /// The music directory with every mount, as the library sees it.
    public let storage: any Storage
    public let registry: DecoderRegistry
    private let http: HTTPFiles?
    var httpFiles: HTTPFiles? { http }
    /// The ReplayGain values a song plays with, given its tags: the analysis pass's
    /// measurement fills in for songs without tags (or replaces them, as configured). Set once
    /// by the daemon before anything plays.
    nonisolated(unsafe) public var measuredReplayGain: (@Sendable (Song, ReplayGainInfo) -> ReplayGainInfo)?

    public init(storage: any Storage, registry: DecoderRegistry, http: HTTPFiles?) {
        self.storage = storage
        self.registry = registry
        self.http = http
    }

    /// What `decoders` lists.
    public var decoders: [DecoderDescription] { registry.plugins.map(DecoderDescription.init) }

    /// What `urlhandlers` lists: the schemes `add` takes.
    public var urlSchemes: [String] { http == nil ? [] : Self.remoteSchemes.map { $0 + "://" } }

    // MARK: playing

    /// Opens the song's stream once: with ReplayGain on, its tags are read from that stream
    /// (the head is cached by then for a cloud song) before the decoder starts at the beginning.
    /// `mixRamp`: also read the song's MixRamp profile (crossfade with MixRamp on needs it).
    public func openDecoder(for song: Song, replayGain: ReplayGainSettings, mixRamp: Bool) throws -> any AudioDecoder {
        if http != nil, FFmpegPlugin.isHLS(song.playedURI) { return try FFmpegPlugin.openHLS(song.playedURI) }
        let (stream, name) = try openStream(song.playedURI)
        // Before anything cached is decoded: a file replaced on the server must not play a
        // piece of its old version.
        try stream.confirmFreshness()
        var scanned: ScanResult?
        // A live stream has no tags worth a gain, and cannot go back to its start.
        if !replayGain.isOff || mixRamp, stream.isSeekable, let plugin = registry.plugin(forPath: name) {
            scanned = try? plugin.scan(stream, options: ScanOptions())
            try stream.seek(to: 0)
        }
        var decoder = try registry.openDecoder(for: name, stream: stream)
        if stream.size == nil, !stream.isSeekable { decoder = RadioDecoder(decoder, stream: stream) }
        let tagged = scanned?.replayGain ?? ReplayGainInfo()
        let scale = replayGain.isOff ? 1 : replayGain.scale(for: measuredReplayGain?(song, tagged) ?? tagged)
        var ramp = mixRamp ? scanned?.mixRamp : nil
        ramp?.gainDB = 20 * Float(log10(Double(scale)))
        guard scale != 1 || ramp.map({ !$0.isEmpty }) == true else { return decoder }
        return ReplayGainDecoder(decoder, scale: scale, mixRamp: ramp)
    }

    public func sourceChanged(_ song: Song) -> Bool {
        guard location(of: song.playedURI).isInLibrary else { return false }
        return storage.refresh(song.playedURI)
    }

    public func prefetch(_ song: Song) {
        guard location(of: song.playedURI).isInLibrary else { return }
        storage.prefetch(song.playedURI)
    }

    /// Where `uri` is: the one place mounts are told apart from the local music directory.
    public func location(of uri: String) -> SongLocation {
        SongLocation(uri) { storage.isMountPoint($0) }
    }

    /// MPD 0.24's remote tag scan: a URL queued with `add` gets its tags and length as a
    /// library song has them. Live streams (no length) are not read: their name and title come
    /// with ICY metadata while they play.
    public func remoteTags(of song: Song) -> ScanResult? {
        guard let http, remoteSong(song.uri) != nil, let stream = try? http.open(song.uri, purpose: .indexing, allowLive: false),
            stream.size != nil, stream.isSeekable
        else { return nil }
        let name = String(song.uri.prefix { $0 != "?" && $0 != "#" })
        guard let plugin = registry.plugin(forPath: name) ?? stream.mimeType.flatMap(registry.plugin(forMimeType:)) else { return nil }
        return try? plugin.scan(stream, options: ScanOptions())
    }

    /// The stream of a song and the name its decoder is chosen by.
    func openStream(_ uri: String) throws(InputError) -> (any InputStream, String) {
        switch location(of: uri) {
        case .url:
            guard let http else { throw InputError("No input plugin for \(uri)") }
            // The decoder is chosen by the file name in the URL's path.
            return (try http.open(uri, purpose: .playing), String(uri.prefix { $0 != "?" && $0 != "#" }))
        case .file: return (try FileInputStream(path: uri), uri)
        case .library, .mounted: return (try storage.open(uri, purpose: .playing), uri)
        }
    }

    // MARK: songs outside the library

    /// A song for a URL a client queues (`add http://…`); nil for a scheme Nimbus cannot play.
    public func remoteSong(_ uri: String) -> Song? {
        guard http != nil, let colon = uri.range(of: "://"),
            Self.remoteSchemes.contains(uri[..<colon.lowerBound].lowercased()) || FFmpegPlugin.isHLS(uri)
        else { return nil }
        return Song(uri: uri)
    }

    /// Scans a file outside the music directory named by a local client; nil if unreadable.
    public func localFileSong(_ path: String) -> Song? {
        guard let plugin = registry.plugin(forPath: path), let stream = try? FileInputStream(path: path),
            let scanned = try? plugin.scan(stream, options: ScanOptions())
        else { return nil }
        return Song(uri: path, format: scanned.format, tag: scanned.tag)
    }

    // MARK: artwork and metadata

    /// MPD's cover names, then `folder.*`, which many libraries use and MPD ignores.
    public static let coverNames = [
        "cover.png", "cover.jpg", "cover.tiff", "cover.bmp", "cover.webp", "folder.jpg", "folder.png", "folder.webp",
    ]

    /// Whether reading `uri` may wait on the network (the server then answers off its loop).
    public func readsOverNetwork(_ uri: String) -> Bool { location(of: uri).isNetwork }

    /// The bytes of the first cover file in `directory`, else the picture the storage knows
    /// for `uri` (a song of that directory) or the directory itself: a podcast episode's
    /// image, else its show's.
    public func cover(inDirectory directory: String, for uri: String? = nil) throws(SongSourceError) -> [UInt8] {
        for name in Self.coverNames {
            if let data = try? storage.open(StoragePath.join(directory, name)).readToEnd() { return data }
        }
        if let picture = storage.picture(uri ?? directory) { return picture.data }
        throw .noCover
    }

    /// A library song's metadata read again, with its embedded picture or its raw comments.
    public func metadata(of uri: String, picture: Bool) throws(SongSourceError) -> SongMetadata {
        guard let plugin = registry.plugin(forPath: uri) else { throw .noSuchSong }
        let scanned = try SongSourceError.reading {
            try plugin.scan(try storage.open(uri), options: ScanOptions(comments: !picture, picture: picture))
        }
        var metadata = SongMetadata()
        metadata.picture = scanned.picture?.data
        metadata.pictureType = scanned.picture?.mimeType
        if picture, metadata.picture == nil, let known = storage.picture(uri) {
            metadata.picture = known.data
            metadata.pictureType = known.mimeType
        }
        metadata.comments = scanned.comments
        return metadata
    }
}
