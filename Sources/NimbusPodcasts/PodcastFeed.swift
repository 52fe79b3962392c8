import Foundation
import NimbusSupport
import NimbusXML

/// One show as its RSS feed (or Atom) describes it, read with expat through `XMLDocument`
/// (bounded, no entity expansion). Everything here came from the internet, so every field is
/// optional in the source and cleaned on the way in: HTML descriptions become plain text,
/// relative addresses are resolved against the feed's, and an episode without a `guid` is
/// known by its enclosure's address.
public struct PodcastFeed: Sendable, Equatable {
    public var title: String
    public var author: String?
    public var description: String?
    /// The show's picture (`itunes:image`, else the channel's `image/url`).
    public var image: URL?
    public var link: String?
    /// Newest first, as published; at most `maximumEpisodes`.
    public var episodes: [PodcastEpisode]

    public static let itunes = "http://www.itunes.com/dtds/podcast-1.0.dtd"
    static let atom = "http://www.w3.org/2005/Atom"
    /// A feed is bounded in bytes before it is parsed; this bounds what is kept of it.
    public static let maximumEpisodes = 10_000
    /// The largest feed read (some shows publish every episode ever in one file).
    public static let maximumBytes = 50 << 20

    public typealias Failure = DomainError<PodcastFeed>

    /// The feed in `bytes`, fetched from `address` (what relative links resolve against).
    public static func parse(_ bytes: [UInt8], address: URL) throws(Failure) -> PodcastFeed {
        guard bytes.count <= maximumBytes else { throw Failure("the feed is larger than \(maximumBytes >> 20) MB") }
        let root: XMLElement
        do {
            root = try XMLDocument.parse(bytes)
        } catch {
            let start = String(decoding: bytes.prefix(512), as: UTF8.self).lowercased()
            if start.contains("<html") || start.contains("<!doctype html") { throw Failure("the address serves a web page, not a feed") }
            throw Failure("not a feed: \(error.message)")
        }
        switch (root.namespace, root.name) {
        case ("", "rss"):
            guard let channel = root.first("channel") else { throw Failure("an RSS document without a channel") }
            return rss(channel, address: address)
        case (atom, "feed"):
            return atomFeed(root, address: address)
        case ("", "html"), ("http://www.w3.org/1999/xhtml", "html"):
            throw Failure("the address serves a web page, not a feed")
        default:
            throw Failure("not a feed (the document is <\(root.name)>)")
        }
    }

    private static func rss(_ channel: XMLElement, address: URL) -> PodcastFeed {
        let title = FeedText.line(channel.first("title")?.text ?? "")
        let author = nonEmpty(channel.first("author", namespace: itunes)?.text).map(FeedText.line)
        let image = (channel.first("image", namespace: itunes)?.attributes["href"] ?? channel.value("image/url"))
            .flatMap { FeedText.resolve($0, against: address) }
        var episodes: [PodcastEpisode] = []
        var seen: Set<String> = []
        let dates = FeedText.DateReader()
        for item in channel.all("item") {
            guard episodes.count < maximumEpisodes, let enclosure = item.first("enclosure"),
                let url = enclosure.attributes["url"].flatMap({ FeedText.resolve($0, against: address) })
            else { continue }
            var episode = PodcastEpisode(
                id: nonEmpty(item.first("guid")?.text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? url.absoluteString,
                title: FeedText.line(item.first("title")?.text ?? item.first("title", namespace: itunes)?.text ?? ""), url: url)
            // Two items with one guid (a feed's copy-paste slip): the second is told apart by its enclosure.
            if seen.contains(episode.id) { episode.id += " " + url.absoluteString }
            guard seen.insert(episode.id).inserted else { continue }
            episode.length = enclosure.attributes["length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }.flatMap { $0 > 0 ? $0 : nil }
            episode.type = nonEmpty(enclosure.attributes["type"])
            episode.published = item.first("pubDate").flatMap { dates.date($0.text) }
            episode.duration = item.first("duration", namespace: itunes).flatMap { FeedText.duration($0.text) }
            episode.number = item.first("episode", namespace: itunes).flatMap { Int($0.text.trimmingCharacters(in: .whitespaces)) }
            episode.author = nonEmpty(item.first("author", namespace: itunes)?.text).map(FeedText.line) ?? author
            let summary = item.first("description")?.text ?? item.first("summary", namespace: itunes)?.text
            episode.description = nonEmpty(summary.map(FeedText.plain))
            episode.image = item.first("image", namespace: itunes)?.attributes["href"].flatMap { FeedText.resolve($0, against: address) }
            episodes.append(episode)
        }
        return PodcastFeed(
            title: title.isEmpty ? (address.host ?? "Podcast") : title, author: author,
            description: nonEmpty((channel.first("description")?.text).map(FeedText.plain)), image: image,
            link: nonEmpty(channel.first("link")?.text), episodes: episodes)
    }

    private static func atomFeed(_ feed: XMLElement, address: URL) -> PodcastFeed {
        var episodes: [PodcastEpisode] = []
        let dates = FeedText.DateReader()
        for entry in feed.all("entry", namespace: atom) where episodes.count < maximumEpisodes {
            guard let link = entry.all("link", namespace: atom).first(where: { $0.attributes["rel"] == "enclosure" }),
                let url = link.attributes["href"].flatMap({ FeedText.resolve($0, against: address) })
            else { continue }
            var episode = PodcastEpisode(
                id: nonEmpty(entry.first("id", namespace: atom)?.text) ?? url.absoluteString,
                title: FeedText.line(entry.first("title", namespace: atom)?.text ?? ""), url: url)
            episode.length = link.attributes["length"].flatMap { Int64($0) }
            episode.type = nonEmpty(link.attributes["type"])
            episode.published = (entry.first("published", namespace: atom) ?? entry.first("updated", namespace: atom)).flatMap { dates.date($0.text) }
            episode.description = nonEmpty((entry.first("summary", namespace: atom)?.text).map(FeedText.plain))
            episodes.append(episode)
        }
        let title = FeedText.line(feed.first("title", namespace: atom)?.text ?? "")
        return PodcastFeed(
            title: title.isEmpty ? (address.host ?? "Podcast") : title, author: nonEmpty(feed.value("author/name", namespace: atom)),
            description: nil, image: nil, link: nil, episodes: episodes)
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        return text
    }
}

/// One episode: what the library shows of it and where its audio is.
public struct PodcastEpisode: Sendable, Equatable {
    /// The feed's `guid`, else the enclosure's address: what tells a new episode from a known one.
    public var id: String
    public var title: String
    public var url: URL
    /// Bytes, when the feed says (many say 0 or nothing).
    public var length: Int64?
    public var type: String?
    public var published: Date?
    /// Seconds (`itunes:duration`).
    public var duration: Double?
    public var number: Int?
    public var author: String?
    public var description: String?
    /// The episode's own picture (`itunes:image` on the item), when it has one.
    public var image: URL?

    public init(id: String, title: String, url: URL) {
        self.id = id
        self.title = title
        self.url = url
    }
}
