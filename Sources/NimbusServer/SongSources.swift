import NimbusCore
import NimbusDecoder
import NimbusInput
import NimbusLibrary
import NimbusModel
import NimbusStorage
import NimbusSupport

/// Where the player gets a queued song's bytes and where songs outside the library come
/// from: library files through the music storage (local folder or cloud mount), files named
/// by absolute path (local clients only) directly, URLs through the range cache.
@CoreActor
public enum SongSources {
    static let remoteSchemes = ["http", "https"]

    public static func install(in context: ServerContext, library: MusicLibrary, registry: DecoderRegistry, http: HTTPFiles? = nil) {
        let storage = library.storage
        context.songOpener = { song, replayGain in
            let uri = song.uri
            // The stream and the name the decoder is chosen by.
            let source: @Sendable () throws -> (any InputStream, String)
            if song.isRemote {
                guard let http else { return { throw DecoderError("No input plugin for \(uri)") } }
                // The decoder is chosen by the file name in the URL's path.
                let name = String(uri.prefix { $0 != "?" && $0 != "#" })
                source = { (try http.open(uri, purpose: .playing), name) }
            } else if uri.hasPrefix("/") {
                source = { (try FileInputStream(path: uri), uri) }
            } else {
                source = { (try storage.open(uri), uri) }
            }
            return {
                let (stream, name) = try source()
                let decoder = try registry.openDecoder(for: name, stream: stream)
                guard !replayGain.isOff else { return decoder }
                // The tags once more for their gain (the head of a cloud file is cached by now);
                // a live stream has none, and a second connection to it would be wasted.
                let info = stream.isSeekable
                    ? (try? source()).flatMap { stream, name in
                        try? registry.plugin(forPath: name)?.scan(stream, options: ScanOptions()).replayGain
                    } : nil
                let scale = replayGain.scale(for: info ?? ReplayGainInfo())
                return scale == 1 ? decoder : ReplayGainDecoder(decoder, scale: scale)
            }
        }
        context.songPrefetch = { song in
            guard !song.isRemote, let mounted = storage as? MountedStorage else { return }
            let (target, inner, mount) = mounted.route(song.uri)
            if mount != nil, let cloud = target as? CloudStorage { cloud.prefetch(inner) }
        }
        context.remoteSong = { uri in
            guard let colon = uri.range(of: "://"), remoteSchemes.contains(uri[..<colon.lowerBound].lowercased()) else {
                return nil
            }
            return Song(uri: uri)
        }
        context.localFileSong = { path in
            guard let plugin = registry.plugin(forPath: path), let stream = try? FileInputStream(path: path),
                let scanned = try? plugin.scan(stream, options: ScanOptions())
            else { return nil }
            return Song(uri: path, format: scanned.format, tag: scanned.tag)
        }
    }
}
