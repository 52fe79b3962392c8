/// What the API needs of the box's podcast subscriptions — the same ones `podcastsubscribe`
/// and the Podcasts page use. Episodes are library songs under `podcasts/` (streamed and
/// transcoded like any song); "downloading" one pins it on the box.
public struct SubsonicPodcasts: Sendable {
    public struct Channel: Sendable {
        /// The show's folder under `podcasts/` (what `podcastunsubscribe` takes).
        public var name: String
        public var url: String
        public var title: String
        public var author: String?
        public var description: String?
        public var image: String?
        public var error: String?
        public var episodes: [Episode]

        public init(
            name: String, url: String, title: String, author: String?, description: String?, image: String?, error: String?, episodes: [Episode]
        ) {
            self.name = name
            self.url = url
            self.title = title
            self.author = author
            self.description = description
            self.image = image
            self.error = error
            self.episodes = episodes
        }
    }

    public struct Episode: Sendable {
        /// The episode as a library song (`podcasts/SHOW/FILE`).
        public var uri: String
        public var title: String
        public var description: String?
        /// UNIX time.
        public var published: Int64?
        public var seconds: Double?
        public var size: Int64?

        public init(uri: String, title: String, description: String?, published: Int64?, seconds: Double?, size: Int64?) {
            self.uri = uri
            self.title = title
            self.description = description
            self.published = published
            self.seconds = seconds
            self.size = size
        }
    }

    /// Where an episode's bytes are on the box: `completed` (pinned and on disk),
    /// `downloading` with the share done (0…1), `error`, or `new` (not pinned).
    public struct Status: Sendable, Equatable {
        public var state: String
        public var done: Double?

        public init(state: String, done: Double? = nil) {
            self.state = state
            self.done = done
        }
    }

    /// Any thread.
    public var channels: @Sendable () -> [Channel]
    /// Blocking (fetches the feed): the show's name.
    public var subscribe: @Sendable (_ url: String) throws -> String
    public var unsubscribe: @Sendable (_ name: String) throws -> Void
    /// Blocking (reads every feed).
    public var refresh: @Sendable () throws -> Void
    /// Pins (true) or unpins and forgets the bytes of (false) episodes, by URI.
    public var keep: @Sendable (_ uris: [String], _ keep: Bool) async -> Void
    /// The status of every pinned episode, by URI.
    public var statuses: @Sendable () -> [String: Status]

    public init(
        channels: @escaping @Sendable () -> [Channel], subscribe: @escaping @Sendable (String) throws -> String,
        unsubscribe: @escaping @Sendable (String) throws -> Void, refresh: @escaping @Sendable () throws -> Void,
        keep: @escaping @Sendable ([String], Bool) async -> Void, statuses: @escaping @Sendable () -> [String: Status]
    ) {
        self.channels = channels
        self.subscribe = subscribe
        self.unsubscribe = unsubscribe
        self.refresh = refresh
        self.keep = keep
        self.statuses = statuses
    }
}
