import Foundation
import NimbusInput
import NimbusModel
import NimbusStorage

/// The subscriptions as a storage mounted at `podcasts`: a folder per show, a file per
/// episode carrying the feed's tags (the database takes them without reading the audio), and
/// the audio opened through the range cache like any HTTP file — the first bytes and every
/// seek fetch only the ranges needed, and what was heard replays without the network.
public struct PodcastStorage: Storage {
    let shows: PodcastShows
    let http: HTTPFiles

    public init(shows: PodcastShows, http: HTTPFiles) {
        self.shows = shows
        self.http = http
    }

    public func list(_ directory: String, skipped: (String) -> Void) throws(StorageError) -> [StorageEntry] {
        if directory.isEmpty {
            return shows.shows.map { show in
                StorageEntry(name: show.name, kind: .directory, size: 0, modified: show.updated ?? show.subscribed, identity: nil)
            }
        }
        guard let show = shows.show(named: directory) else { throw StorageError(.notFound, "no such podcast: \(directory)") }
        return show.episodes.map { entry(of: $0, in: show) }
    }

    public func stat(_ path: String) throws(StorageError) -> StorageEntry {
        if path.isEmpty { return StorageEntry(name: "", kind: .directory, size: 0, modified: 0, identity: nil) }
        let (show, episode) = try find(path)
        guard let episode else { return StorageEntry(name: show.name, kind: .directory, size: 0, modified: show.updated ?? 0, identity: nil) }
        return entry(of: episode, in: show)
    }

    public func open(_ path: String) throws(InputError) -> any NimbusInput.InputStream { try open(path, purpose: .playing) }

    public func open(_ path: String, purpose: FetchPurpose) throws(InputError) -> any NimbusInput.InputStream {
        guard let found = try? find(path), let episode = found.1 else { throw InputError("no such episode: \(path)") }
        return try http.open(episode.url, purpose: purpose, allowLive: false)
    }

    /// An episode kept offline (`pin podcasts/SHOW`): its enclosure in the range cache.
    public func offlineFile(_ path: String) -> OfflineFile? {
        guard let found = try? find(path), let episode = found.1 else { return nil }
        return http.offlineFile(episode.url, account: "podcasts")
    }

    public func localPath(_ path: String) -> String? { nil }

    /// Pictures larger than this are not covers (and are not read into memory).
    static let pictureLimit = 8 << 20

    /// An episode's own image (`itunes:image` on the item), else the show's; a show folder's is
    /// the show's. Read through the range cache like the audio, so it is fetched once and
    /// shown offline afterwards.
    public func picture(_ path: String) -> StoragePicture? {
        guard let (show, episode) = try? find(path), let address = episode?.image ?? show.image,
            let stream = try? http.open(address, purpose: .playing, allowLive: false)
        else { return nil }
        if let size = stream.size, size > Self.pictureLimit { return nil }
        guard let data = try? stream.readToEnd(), !data.isEmpty, data.count <= Self.pictureLimit else { return nil }
        return StoragePicture(data: data, mimeType: StoragePicture.sniffedType(data, declared: stream.mimeType))
    }

    public func refresh(_ path: String) -> Bool { false }

    private func find(_ path: String) throws(StorageError) -> (PodcastShow, PodcastShow.Episode?) {
        let parts = path.split(separator: "/", maxSplits: 1).map(String.init)
        guard let name = parts.first, let show = shows.show(named: name) else { throw StorageError(.notFound, "no such podcast: \(path)") }
        guard parts.count == 2 else { return (show, nil) }
        guard let episode = show.episodes.first(where: { $0.file == parts[1] }) else { throw StorageError(.notFound, "no such episode: \(path)") }
        return (show, episode)
    }

    private func entry(of episode: PodcastShow.Episode, in show: PodcastShow) -> StorageEntry {
        StorageEntry(
            name: episode.file, kind: .file, size: episode.length ?? 0, modified: episode.published ?? episode.seen, identity: nil,
            tag: Self.tag(of: episode, in: show))
    }

    /// The feed's words as tags: Title, Album (the show), Artist, Date, Track, Genre, Comment
    /// and, when the feed says, the duration.
    static func tag(of episode: PodcastShow.Episode, in show: PodcastShow) -> Tag {
        var tag = Tag()
        tag.add(.title, episode.title.isEmpty ? episode.file : episode.title)
        tag.add(.album, show.title)
        if let artist = episode.author ?? show.author { tag.add(.artist, artist) }
        if let published = episode.published { tag.add(.date, EpisodeNames.day(published)) }
        if let number = episode.number { tag.add(.track, String(number)) }
        tag.add(.genre, "Podcast")
        if let description = episode.description { tag.add(.comment, description) }
        tag.duration = episode.duration.map { Int($0 * 1000) }
        return tag
    }
}
