import NimbusModel
import Synchronization

/// One change to the sticker table.
public enum StickerChange: Sendable, Equatable {
    case set(type: String, uri: String, name: String, value: String)
    /// Adds to an integer sticker (MPD's `sticker inc`), creating it at `by`.
    case add(type: String, uri: String, name: String, by: Int)
    case delete(type: String, uri: String, name: String)
}

/// Stars, ratings and plays are kept where MPD clients keep them — in MPD's sticker table,
/// under the names myMPD and Cantata use — so that what a phone sets shows on the box's
/// clients and the other way round:
///
/// - `rating`: 0–10 (a Subsonic rating 1–5 × 2; 0 or none: unrated), on songs and on the
///   `Album` / `AlbumArtist` tag values;
/// - `like`: 2 when starred (removed on unstar; myMPD's 0 "disliked" reads as not starred);
/// - `playCount`: plays submitted by `scrobble`; `lastPlayed`: Unix time of the last one.
///
/// The daemon reads and writes them on its core loop (the table belongs to it).
public struct SubsonicStickers: Sendable {
    /// Every sticker of objects of `type` ("song", "Album", "AlbumArtist") called one of
    /// `names`: object → name → value.
    public var read: @Sendable (_ type: String, _ names: [String]) async -> [String: [String: String]]
    /// Applies the changes (raising `sticker` on the MPD port); a message when it failed.
    public var change: @Sendable (_ changes: [StickerChange]) async -> String?

    public init(
        read: @escaping @Sendable (String, [String]) async -> [String: [String: String]],
        change: @escaping @Sendable ([StickerChange]) async -> String?
    ) {
        self.read = read
        self.change = change
    }

    public static let none = SubsonicStickers(read: { _, _ in [:] }, change: { _ in "Stickers are not enabled (no sticker_file)" })

    static let names = [SongStickers.rating, SongStickers.like, SongStickers.playCount, SongStickers.lastPlayed]
}

/// The annotations of one object, as the API shows them.
struct Annotation: Sendable {
    var rating: Int?
    var starred = false
    var playCount = 0
    var lastPlayed: Int64?

    init(_ stickers: [String: String]?) {
        guard let stickers else { return }
        rating = SongStickers.stars(stickers[SongStickers.rating])
        starred = SongStickers.isLiked(stickers[SongStickers.like])
        playCount = SongStickers.count(stickers[SongStickers.playCount])
        lastPlayed = stickers[SongStickers.lastPlayed].flatMap { Int64($0) }
    }

    var isEmpty: Bool { rating == nil && !starred && playCount == 0 && lastPlayed == nil }
}

/// The stickers a request needs, read once per request and only by the endpoints that show them.
final class AnnotationSnapshot: Sendable {
    let songs: [String: [String: String]]
    let albums: [String: [String: String]]
    let artists: [String: [String: String]]

    init(songs: [String: [String: String]], albums: [String: [String: String]], artists: [String: [String: String]]) {
        self.songs = songs
        self.albums = albums
        self.artists = artists
    }

    static func read(_ stickers: SubsonicStickers) async -> AnnotationSnapshot {
        AnnotationSnapshot(
            songs: await stickers.read("song", SubsonicStickers.names), albums: await stickers.read("Album", SubsonicStickers.names),
            artists: await stickers.read("AlbumArtist", SubsonicStickers.names))
    }

    func song(_ uri: String) -> Annotation { Annotation(songs[uri]) }
    func album(_ name: String) -> Annotation { Annotation(albums[name]) }
    func artist(_ name: String) -> Annotation { Annotation(artists[name]) }

    /// An album's own rating and star, with its songs' plays summed.
    func album(_ index: Int, in library: SubsonicLibrary) -> Annotation {
        let entry = library.albums[index]
        var annotation = album(entry.name)
        for song in entry.songs {
            let played = self.song(library.songs[song].uri)
            annotation.playCount += played.playCount
            // Unrated itself, an album ranks by its best-rated song.
            if entry.name.isEmpty || albums[entry.name]?[SongStickers.rating] == nil, let rating = played.rating {
                annotation.rating = max(annotation.rating ?? 0, rating)
            }
            if let last = played.lastPlayed { annotation.lastPlayed = max(annotation.lastPlayed ?? 0, last) }
        }
        return annotation
    }

    /// Whether an album's songs need looking at: only when some song has plays or a rating
    /// (most requests: none has, and the walk is skipped).
    var anySongNoted: Bool { songs.values.contains { $0[SongStickers.playCount] != nil || $0[SongStickers.rating] != nil } }
}

extension SubsonicNode {
    /// `starred`, `userRating`, `playCount`, `played` as the spec names them.
    mutating func annotate(_ annotation: Annotation, starredAt: Int64) {
        if annotation.starred { set("starred", ItemNodes.date(starredAt)) }
        set("userRating", annotation.rating)
        if annotation.playCount > 0 { set("playCount", annotation.playCount) }
        if let last = annotation.lastPlayed { set("played", ItemNodes.date(last)) }
    }
}
