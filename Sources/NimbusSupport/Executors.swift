/// Every pool of threads the daemon runs blocking work on, declared in one place with its
/// name (as `top -H` shows it), its bound and its priority, built once where the daemon is
/// assembled and handed to what uses it — no pool is a process-wide singleton, so a test
/// daemon in the same process has its own. The long-lived threads of one job each (the core
/// loop, the decoder, one per output, the web server, the fetchers, …) are started by their
/// owners through `DaemonThread`; README's Design lists them all.
public struct Executors: Sendable {
    /// The blocking half of MPD commands (`albumart`, `readpicture` of a cloud song), a signed-in
    /// account's identity, offline pins being described: one job per client or account at a time.
    public let commands: BlockingWork
    /// Tags of URLs in the queues, read over the network.
    public let remoteTags: BlockingWork
    /// Covers scaled for the web page and the phones.
    public let covers: BlockingWork
    /// Subsonic requests that build an answer (a search walks the library).
    public let subsonic: BlockingWork
    /// Subsonic streams and downloads: each holds a thread while its phone reads.
    public let subsonicStreams: BlockingWork
    /// Transcodes for phones: CPU-bound, below the box's own playback.
    public let transcodes: BlockingWork
    /// Podcast feeds and downloads started from a client.
    public let podcasts: BlockingWork

    public init() {
        commands = BlockingWork(name: "blocking", limit: 4)
        remoteTags = BlockingWork(name: "remote-tags", limit: 2)
        covers = BlockingWork(name: "covers", limit: 3)
        subsonic = BlockingWork(name: "subsonic", limit: 4)
        subsonicStreams = BlockingWork(name: "phone-stream", limit: 16)
        transcodes = BlockingWork(name: "transcode", limit: 12, priority: .background)
        podcasts = BlockingWork(name: "podcast-work", limit: 2)
    }

    /// Every pool, for the log and the thread inventory test.
    public var all: [BlockingWork] { [commands, remoteTags, covers, subsonic, subsonicStreams, transcodes, podcasts] }
}
