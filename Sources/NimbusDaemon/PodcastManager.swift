import Foundation
import NimbusLibrary
import NimbusOffline
import NimbusPodcasts
import NimbusServer
import NimbusStorage
import NimbusSupport

/// The podcast subscriptions of the daemon: mounts them at `podcasts/` while there is one,
/// updates the library when a show's episodes change (which raises `database` once), and
/// refreshes every feed on a timer of its own (`podcast_refresh_interval`).
final class PodcastManager: PodcastControl, @unchecked Sendable {
    static let mountName = "podcasts"

    let shows: PodcastShows
    private let storage: PodcastStorage
    private let mounted: MountedStorage
    private let library: MusicLibrary
    private let offline: OfflineDownloads
    private let logger: Logger
    /// Pins changed (set at start, before any thread runs): the server syncs them and tells clients.
    var pinsChanged: @Sendable () -> Void = {}
    private let interval: Double
    private let stopped = NSCondition()
    private var stopping = false
    /// Where forgetting an episode's bytes runs (finding its cache entry may ask the server).
    private let work: BlockingWork

    @CoreActor
    init(
        shows: PodcastShows, http: HTTPFiles, mounted: MountedStorage, library: MusicLibrary, offline: OfflineDownloads, interval: Int,
        work: BlockingWork, logger: Logger
    ) {
        self.work = work
        self.shows = shows
        self.offline = offline
        self.mounted = mounted
        self.library = library
        self.logger = logger
        self.interval = Double(max(60, interval))
        storage = PodcastStorage(shows: shows, http: http)
        if !shows.shows.isEmpty { mounted.mount(Self.mountName, storage) }
    }

    func subscribe(_ url: String) throws(PodcastFailure) -> String {
        do {
            let name = try shows.subscribe(url)
            changed([name])
            return name
        } catch {
            throw PodcastFailure(.feed, error.description)
        }
    }

    func unsubscribe(_ name: String) throws(PodcastFailure) {
        if shows.show(named: name) != nil { try? keep(name, count: 0, forgetPlayed: false) }
        do {
            try shows.unsubscribe(name)
        } catch {
            throw PodcastFailure(.noSuchPodcast, error.description)
        }
        changed([name])
    }

    func refresh(_ name: String?) throws(PodcastFailure) {
        do {
            changed(try shows.refresh(name))
        } catch {
            throw PodcastFailure(name.map { shows.show(named: $0) == nil } == true ? .noSuchPodcast : .feed, error.description)
        }
    }

    func keep(_ name: String, count: Int, forgetPlayed: Bool) throws(PodcastFailure) {
        guard var show = shows.show(named: name) else { throw PodcastFailure(.noSuchPodcast, "no such podcast: \(name)") }
        show.keep = count > 0 ? count : nil
        show.forgetPlayed = count > 0 && forgetPlayed ? true : nil
        if show.forgetPlayed == nil { show.played = nil }
        applyKeep(show)
    }

    /// An episode heard to its end: for a show that forgets what was heard, its bytes leave
    /// the cache (off the core loop: finding its cache entry asks the server) and the next
    /// newest episode is kept instead.
    @CoreActor
    func episodeFinished(_ uri: String) {
        let parts = uri.split(separator: "/", maxSplits: 2).map(String.init)
        guard parts.count == 3, parts[0] == Self.mountName, var show = shows.show(named: parts[1]), show.forgetPlayed == true,
            !(show.played ?? []).contains(parts[2])
        else { return }
        show.played = (show.played ?? []) + [parts[2]]
        applyKeep(show)
        let storage = storage, file = parts[1] + "/" + parts[2], logger = logger
        work.submit {
            storage.offlineFile(file)?.discard()
            logger.info("podcast: forgot the bytes of \(file), heard to its end")
        }
    }

    /// Pins the newest episodes a show keeps and unpins those it kept before and no longer
    /// does; pins made by hand are left alone.
    private func applyKeep(_ show: PodcastShow) {
        let wanted = Set(show.toKeep), had = Set(show.kept ?? [])
        var changed = false
        for file in wanted.subtracting(had) {
            changed = offline.add(Pin(kind: .song, name: "\(Self.mountName)/\(show.name)/\(file)")) || changed
        }
        for file in had.subtracting(wanted) {
            do {
                try offline.remove(Pin.ID(playlist: false, name: "\(Self.mountName)/\(show.name)/\(file)"))
                changed = true
            } catch {
                logger.info("podcast \(show.name): \(file) was no longer pinned")
            }
        }
        try? shows.setKeep(show.name, count: show.keep, forget: show.forgetPlayed, kept: show.toKeep, played: show.played)
        if changed { pinsChanged() }
    }

    var listing: [PodcastListing] {
        shows.shows.map { show in
            PodcastListing(
                name: show.name, url: show.url, episodes: show.episodes.count,
                arrivals: show.episodes.filter { $0.seen > show.subscribed }.map { "\(Self.mountName)/\(show.name)/\($0.file)" },
                updated: show.updated, error: show.error, keep: show.keep, forgetsPlayed: show.forgetPlayed == true)
        }
    }

    /// The mount follows the subscriptions; the library reads the shows that changed.
    private func changed(_ names: [String]) {
        guard !names.isEmpty else { return }
        for name in names { if let show = shows.show(named: name), show.keep != nil { applyKeep(show) } }
        let any = !shows.shows.isEmpty
        if any { mounted.mount(Self.mountName, storage) }
        Task { @CoreActor [library, logger] in
            do {
                _ = try library.update(any ? Self.mountName : "")
            } catch {
                logger.warning("podcasts: the library update queue is full; run update")
            }
            if !any { self.mounted.unmount(Self.mountName) }
        }
    }

    /// Refreshes every feed every `interval` seconds, on a thread of its own (the network).
    func start() {
        DaemonThread.start(name: "podcasts") { [self] in
            while true {
                stopped.lock()
                let deadline = Date().addingTimeInterval(interval)
                while !stopping, stopped.wait(until: deadline) {}
                let done = stopping
                stopped.unlock()
                if done { return }
                if !shows.shows.isEmpty { changed((try? shows.refresh(nil)) ?? []) }
            }
        }
    }

    func stop() {
        stopped.lock()
        stopping = true
        stopped.signal()
        stopped.unlock()
    }
}
