import NimbusCore
import NimbusDecoder
import NimbusInput
import NimbusLibrary
import NimbusModel
import NimbusStorage
import NimbusSupport

/// Where the player gets a queued song's bytes and where songs outside the library come
/// from: library files through the music storage, files named by absolute path (local
/// clients only) directly, URLs later through the cloud layer.
@CoreActor
public enum SongSources {
    static let remoteSchemes = ["http", "https"]

    public static func install(in context: ServerContext, library: MusicLibrary, registry: DecoderRegistry) {
        let storage = library.storage
        context.songOpener = { song in
            let uri = song.uri
            if song.isRemote {
                return { throw DecoderError("Streaming \(uri) is not supported yet") }
            }
            if uri.hasPrefix("/") {
                return { try registry.openDecoder(for: uri, stream: try FileInputStream(path: uri)) }
            }
            return { try registry.openDecoder(for: uri, stream: try storage.open(uri)) }
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
