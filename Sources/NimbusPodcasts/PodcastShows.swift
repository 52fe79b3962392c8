import Foundation
import NimbusInput
import NimbusStorage
import NimbusSupport
import Synchronization

/// One subscription as it is kept: where the feed is, how it last answered, and its episodes
/// with the names they have in the library.
public struct PodcastShow: Codable, Sendable, Equatable {
    public struct Episode: Codable, Sendable, Equatable {
        public var id: String
        public var file: String
        public var title: String
        public var url: String
        public var length: Int64?
        public var published: Int64?
        public var duration: Double?
        public var number: Int?
        public var author: String?
        public var description: String?
        /// When this daemon first saw it (UNIX time).
        public var seen: Int64
        /// The episode's own picture, when the feed gives one (else the show's is its cover).
        public var image: String?
    }

    /// The folder's name under `podcasts/`.
    public var name: String
    public var url: String
    public var title: String
    public var author: String?
    public var image: String?
    public var etag: String?
    public var lastModified: String?
    public var subscribed: Int64
    /// The last refresh that reached the feed (UNIX time).
    public var updated: Int64?
    /// Why the last refresh failed; nil when it worked.
    public var error: String?
    public var episodes: [Episode]
    /// `podcastkeep`: how many of the newest episodes are kept offline (nil: none).
    public var keep: Int?
    /// The episodes (file names) `podcastkeep` pinned, so it unpins only its own.
    public var kept: [String]?
    /// `podcastkeep … forget`: an episode heard to its end leaves the cache and is not kept again.
    public var forgetPlayed: Bool?
    /// Episodes heard to their end while `forgetPlayed` was on.
    public var played: [String]?

    /// The newest `keep` episodes' file names (those heard to the end left out when they are forgotten).
    public var toKeep: [String] {
        let heard = forgetPlayed == true ? Set(played ?? []) : []
        return Array(episodes.map(\.file).filter { !heard.contains($0) }.prefix(keep ?? 0))
    }
}

/// The subscriptions: fetched, parsed, kept beside the state file (written whole and
/// atomically), refreshed with conditional requests. Blocking (network): call off the core loop.
public final class PodcastShows: Sendable {
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    private let path: String
    private let http: HTTPFiles
    private let logger: Logger
    private let state = Mutex<[PodcastShow]>([])
    /// One refresh or subscription at a time: two would race on the same show.
    private let fetching = NSLock()

    public init(path: String, http: HTTPFiles, logger: Logger) {
        self.path = path
        self.http = http
        self.logger = logger
        if let bytes = (try? AtomicFile.read(path)) ?? nil {
            if let shows = try? JSONDecoder().decode([PodcastShow].self, from: Data(bytes)) {
                state.withLock { $0 = shows }
            } else {
                let aside = path + ".damaged"
                _ = rename(path, aside)
                logger.error("\(path) could not be read; set aside as \(aside), no subscriptions kept from it")
            }
        }
    }

    public var shows: [PodcastShow] { state.withLock { $0 } }

    public func show(named name: String) -> PodcastShow? { state.withLock { $0.first { $0.name == name } } }

    /// Subscribes to the feed at `url`; answers the show's folder name. Fetches and parses
    /// first: an address that is not a feed is refused and nothing is kept.
    public func subscribe(_ url: String) throws(Failure) -> String {
        guard let address = URL(string: url), let scheme = address.scheme?.lowercased(), ["http", "https"].contains(scheme) else {
            throw Failure("not an http(s) address: \(url)")
        }
        fetching.lock()
        defer { fetching.unlock() }
        do {
            if let known = shows.first(where: { $0.url == url }) { return known.name }
            let (response, bytes) = try fetch(url, etag: nil, lastModified: nil)
            guard let bytes else { throw Failure("\(HTTPFiles.host(url)): no feed (status \(response.status))") }
            let feed: PodcastFeed
            do {
                feed = try PodcastFeed.parse(bytes, address: address)
            } catch {
                throw Failure("\(HTTPFiles.host(url)): \(error.description)")
            }
            let now = Int64(Date().timeIntervalSince1970)
            let name = uniqueName(for: feed.title)
            var show = PodcastShow(
                name: name, url: url, title: feed.title, author: feed.author, image: feed.image?.absoluteString,
                etag: response[header: "etag"], lastModified: response[header: "last-modified"], subscribed: now, updated: now,
                error: nil, episodes: [])
            show.episodes = Self.merge(feed.episodes, into: [], now: now)
            state.withLock { $0.append(show) }
            try save()
            logger.notice("subscribed to \(name) (\(show.episodes.count) episodes)")
            return name
        }
    }

    /// Records how many of a show's newest episodes are kept offline, and which are pinned now.
    public func setKeep(_ name: String, count: Int?, forget: Bool?, kept: [String], played: [String]?) throws(Failure) {
        let found = state.withLock { shows in
            guard let index = shows.firstIndex(where: { $0.name == name }) else { return false }
            shows[index].keep = count
            shows[index].forgetPlayed = forget
            shows[index].kept = kept
            shows[index].played = played
            return true
        }
        guard found else { throw Failure("no such podcast: \(name)") }
        try save()
    }

    public func unsubscribe(_ name: String) throws(Failure) {
        let removed = state.withLock { shows in
            guard let index = shows.firstIndex(where: { $0.name == name }) else { return false }
            shows.remove(at: index)
            return true
        }
        guard removed else { throw Failure("no such podcast: \(name)") }
        try save()
    }

    /// Reads the feeds again (one show, or all); answers the shows that gained or lost
    /// episodes. A failing feed keeps its episodes and records why (`error`).
    public func refresh(_ name: String? = nil) throws(Failure) -> [String] {
        if let name, show(named: name) == nil { throw Failure("no such podcast: \(name)") }
        fetching.lock()
        defer { fetching.unlock() }
        do {
            var changed: [String] = []
            for show in shows where name == nil || show.name == name {
                var next = show
                let now = Int64(Date().timeIntervalSince1970)
                do {
                    let (response, bytes) = try fetch(show.url, etag: show.etag, lastModified: show.lastModified)
                    next.error = nil
                    next.updated = now
                    if let bytes, let address = URL(string: show.url) {
                        let feed = try PodcastFeed.parse(bytes, address: address)
                        next.etag = response[header: "etag"]
                        next.lastModified = response[header: "last-modified"]
                        next.author = feed.author
                        next.image = feed.image?.absoluteString
                        next.episodes = Self.merge(feed.episodes, into: show.episodes, now: now)
                    }
                } catch let error as Failure {
                    next.error = error.description
                } catch let error as PodcastFeed.Failure {
                    next.error = error.description
                } catch {
                    next.error = "\(error)"
                }
                if next.error != nil { logger.warning("podcast \(show.name): \(next.error ?? "")") }
                if next.episodes.map(\.id) != show.episodes.map(\.id) { changed.append(show.name) }
                state.withLock { shows in
                    if let index = shows.firstIndex(where: { $0.name == show.name }) { shows[index] = next }
                }
            }
            try save()
            return changed
        }
    }

    /// The feed's bytes, or nil for 304 Not Modified.
    private func fetch(_ url: String, etag: String?, lastModified: String?) throws(Failure) -> (HTTPResponse, [UInt8]?) {
        var headers: [(name: String, value: String)] = []
        if let etag { headers.append(("If-None-Match", etag)) }
        if let lastModified { headers.append(("If-Modified-Since", lastModified)) }
        var notModified = false
        let response: HTTPResponse, bytes: [UInt8]
        do {
            (response, bytes) = try http.fetchDocument(url, limit: PodcastFeed.maximumBytes, headers: headers, compressed: true) { response in
                notModified = response.status == 304
                return true
            }
        } catch {
            throw Failure(error.message)
        }
        if notModified || response.status == 304 { return (response, nil) }
        guard response.isSuccess else { throw Failure("\(HTTPFiles.host(url)): HTTP status \(response.status)") }
        return (response, bytes)
    }

    /// The feed's episodes, newest first, each keeping the file name and first-seen time it
    /// had (a renamed episode keeps its place in stored playlists).
    static func merge(_ episodes: [PodcastEpisode], into known: [PodcastShow.Episode], now: Int64) -> [PodcastShow.Episode] {
        let old = Dictionary(known.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let arrivals = episodes.filter { old[$0.id] == nil }
        var fresh = Dictionary(
            zip(arrivals.map(\.id), EpisodeNames.names(for: arrivals, avoiding: Set(known.map(\.file)))), uniquingKeysWith: { first, _ in first })
        return episodes.map { episode in
            let file = old[episode.id]?.file ?? fresh.removeValue(forKey: episode.id) ?? episode.id
            return PodcastShow.Episode(
                id: episode.id, file: file, title: episode.title, url: episode.url.absoluteString, length: episode.length,
                published: episode.published.map { Int64($0.timeIntervalSince1970) }, duration: episode.duration, number: episode.number,
                author: episode.author, description: episode.description, seen: old[episode.id]?.seen ?? now,
                image: episode.image?.absoluteString)
        }
    }

    /// A folder name from the show's title: safe as a path, not taken.
    private func uniqueName(for title: String) -> String {
        let safe = EpisodeNames.safe(title, limit: 100)
        let base = safe.isEmpty ? "Podcast" : safe
        let taken = Set(shows.map { $0.name.lowercased() })
        var name = base, count = 1
        while taken.contains(name.lowercased()) {
            count += 1
            name = "\(base) (\(count))"
        }
        return name
    }

    private func save() throws(Failure) {
        let shows = self.shows
        do {
            let data = try JSONEncoder().encode(shows)
            try AtomicFile.write(Array(data), to: path, mode: 0o644)
        } catch {
            logger.error("cannot save the podcasts to \(path): \(error)")
            throw Failure("cannot save the podcasts: \(error)")
        }
    }
}
