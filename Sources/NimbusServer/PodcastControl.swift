import NimbusSupport

/// One subscription as `listpodcasts` shows it.
public struct PodcastListing: Sendable, Equatable {
    public var name: String
    public var url: String
    public var episodes: Int
    /// Episodes that arrived after subscribing: the command keeps those not yet started.
    public var arrivals: [String]
    /// UNIX time of the last refresh that reached the feed.
    public var updated: Int64?
    public var error: String?
    /// `podcastkeep`'s count; nil when not set.
    public var keep: Int?
    public var forgetsPlayed: Bool

    public init(
        name: String, url: String, episodes: Int, arrivals: [String], updated: Int64?, error: String?, keep: Int? = nil,
        forgetsPlayed: Bool = false
    ) {
        self.keep = keep
        self.forgetsPlayed = forgetsPlayed
        self.name = name
        self.url = url
        self.episodes = episodes
        self.arrivals = arrivals
        self.updated = updated
        self.error = error
    }
}

/// Podcast subscriptions (`podcastsubscribe`, `podcastunsubscribe`, `listpodcasts`,
/// `podcastrefresh`), provided by the daemon, which mounts the shows at `podcasts/` and
/// updates the library when their episodes change. The blocking calls (the network) are
/// made off the core loop.
public protocol PodcastControl: AnyObject, Sendable {
    /// Fetches and keeps the feed; answers the show's folder name (blocking).
    func subscribe(_ url: String) throws(PodcastFailure) -> String
    func unsubscribe(_ name: String) throws(PodcastFailure)
    /// Reads the feeds again, one or all (blocking).
    func refresh(_ name: String?) throws(PodcastFailure)
    /// Keeps the newest `count` episodes of a show offline (0: none), now and as new ones
    /// arrive; `forgetPlayed`: an episode heard to its end leaves the cache.
    func keep(_ name: String, count: Int, forgetPlayed: Bool) throws(PodcastFailure)
    var listing: [PodcastListing] { get }
}

public struct PodcastFailure: Error, Equatable, CustomStringConvertible {
    public enum Kind: Sendable { case noSuchPodcast, feed }
    public let kind: Kind
    public let description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
