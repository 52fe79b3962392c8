import Foundation
import NimbusArtwork
import NimbusLibrary
import NimbusSources
import NimbusModel
import NimbusSupport
import NimbusWeb

/// The web page's covers: the picture for a song (the cover file beside it, else the one
/// inside it, as myMPD and Cantata look), a folder, or an album of the grid; scaled to the
/// size shown and remembered. The reading and scaling run on worker threads of their own —
/// a cloud cover waits on the network, and a scan is CPU work — never on the core loop.
final class WebCovers: @unchecked Sendable {
    /// Sizes the page may get: a request is rounded up to one, so a few variants are kept
    /// per cover whatever sizes screens ask for.
    static let sizes = [64, 128, 256, 512, 1024]

    private let memory = CoverMemory()
    private let workers: BlockingWork
    private let logger: Logger
    /// The current database and song sources, read on the core loop.
    private let snapshot: @Sendable () async -> (Database, SongSources)?

    init(workers: BlockingWork, logger: Logger, snapshot: @escaping @Sendable () async -> (Database, SongSources)?) {
        self.workers = workers
        self.logger = logger
        self.snapshot = snapshot
    }

    /// The `CoverSource` the web server calls.
    var source: CoverSource {
        { [self] request, answer in
            Task {
                guard let (database, songs) = await snapshot() else { return answer(nil) }
                workers.submit { answer(self.cover(request, database: database, songs: songs)) }
            }
        }
    }

    /// Blocking: reads and scales, or finds it remembered.
    func cover(_ request: CoverRequest, database: Database, songs: SongSources) -> [UInt8]? {
        let size = Self.sizes.first { $0 >= request.size } ?? Self.sizes.last!
        let name = request.album.map { "album\u{0}\($0)\u{0}\(request.artist ?? "")" } ?? "uri\u{0}\(request.uri ?? "")"
        let key = "\(database.updated)\u{0}\(name)\u{0}\(size)"
        if let known = memory.cover(for: key) { return known }
        var scaled: [UInt8]?
        if let picture = Self.picture(request, database: database, songs: songs) {
            do {
                scaled = try CoverScaler.scaled(picture, size: size)
            } catch {
                logger.info("cover for \(request.uri ?? request.album ?? ""): \(error.description)")
            }
        }
        memory.remember(scaled, for: key)
        return scaled
    }

    /// The full-size picture: for a song, the folder's cover file, else its embedded picture;
    /// for a folder, its cover file, else the first song's picture; for an album, its first song's.
    static func picture(_ request: CoverRequest, database: Database, songs: SongSources) -> [UInt8]? {
        var uri = request.uri ?? ""
        if let album = request.album {
            guard let first = database.coverSong(album: album, artist: request.artist ?? "") else { return nil }
            uri = first
        }
        while uri.hasSuffix("/") { uri.removeLast() }
        guard StoragePath.isSafe(uri) else { return nil }
        if database.song(at: uri) != nil {
            if let cover = try? songs.cover(inDirectory: StoragePath.parent(uri), for: uri) { return cover }
            return try? songs.metadata(of: uri, picture: true).picture
        }
        guard database.directory(at: uri) != nil else { return nil }
        if let cover = try? songs.cover(inDirectory: uri) { return cover }
        var first: String?
        database.visit(uri, recursive: false) { directory, song in
            if first == nil { first = StoragePath.join(directory, song.name) }
        }
        return first.flatMap { try? songs.metadata(of: $0, picture: true).picture }
    }
}
