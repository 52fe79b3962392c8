import NimbusModel
import NimbusPlayer
import NimbusQueue
import NimbusSupport

/// Where resume positions are kept. The daemon backs it with the song's `elapsed` sticker (the
/// name myMPD uses, so its "resume" reads the same value) and `played` for a finished song.
@CoreActor
public protocol ResumeStore: AnyObject {
    /// Milliseconds into the song where it was left, if it was.
    func position(of uri: String) -> Int?
    /// `announce`: a moment clients care about (pause, stop, another song), not the periodic save.
    func keep(_ milliseconds: Int, of uri: String, announce: Bool)
    /// Heard to (nearly) the end: the position goes, `played` records when.
    func finished(_ uri: String)
}

/// Which songs get resume positions, and where they are kept.
public struct ResumePolicy {
    public let store: any ResumeStore
    /// Songs at least this long (milliseconds; `resume_min_length`).
    public let minimumLength: Int

    /// Songs that resume whatever their length (podcast episodes).
    public let always: @Sendable (String) -> Bool

    public init(store: any ResumeStore, minimumLength: Int, always: @escaping @Sendable (String) -> Bool = { _ in false }) {
        self.store = store
        self.minimumLength = minimumLength
        self.always = always
    }

    /// A song heard to within this much of its end is finished.
    static let finishedWithin = 10_000
    /// A resumed song starts this much before where it was left, to pick up the thread.
    static let rewind = 5_000
}

extension Partition {
    /// Whether `item` gets a resume position: long enough (or a podcast episode), of known
    /// length, and a whole file (a CUE track's position belongs to its range, not the file).
    func resumeLength(of item: QueueItem) -> Int? {
        guard let policy = home.resume, policy.minimumLength > 0, item.range == nil, let length = item.song.tag.duration,
            length >= policy.minimumLength || policy.always(item.song.uri)
        else { return nil }
        return length
    }

    /// Where `play`, `next` or the queue reaching the song at `position` starts it.
    func resumeOffset(forPosition position: Int) -> Int {
        let item = queue[position]
        guard let length = resumeLength(of: item), let kept = home.resume?.store.position(of: item.song.uri),
            kept < length - ResumePolicy.finishedWithin
        else { return 0 }
        return max(0, kept - ResumePolicy.rewind)
    }

    /// Keeps where the song being heard is (pause, stop, a move to another song, the periodic
    /// save, shutdown). Before the player reported the song's start, the current song and
    /// where it was started stand for it — except when the current song was just changed
    /// (`leaving`: the song being left is the one to keep, and only the player knows it).
    func keepHeardPosition(announce: Bool = true, leaving: Bool = false) {
        guard let store = home.resume?.store, state != .stop else { return }
        let playing = handshake.playing
        let reported = playing.flatMap { handshake.queueID(of: $0) }.flatMap { queue.position(ofID: $0) }
        guard let position = reported ?? (leaving ? nil : currentPosition), let length = resumeLength(of: queue[position]) else { return }
        let status = engine.status
        let heard = state == .play && reported != nil && status.token == playing ? status.elapsedMilliseconds : pendingElapsed
        let uri = queue[position].song.uri
        if heard >= length - ResumePolicy.finishedWithin {
            store.finished(uri)
        } else if heard > 0 {
            store.keep(heard, of: uri, announce: announce)
        }
    }

    /// The song at order index `order` played to its end.
    func songPlayedThrough(order: Int) {
        guard let store = home.resume?.store, order < queue.order.count else { return }
        let item = queue[queue.order[order]]
        guard resumeLength(of: item) != nil else { return }
        store.finished(item.song.uri)
    }
}

extension PartitionSet {
    /// Every 30 s, the position of each song playing is kept, so a kill -9 or a power cut
    /// loses at most that much.
    public func keepResumePositions(every interval: Duration = .seconds(30)) {
        resumeSaver?.cancel()
        resumeSaver = Task { @CoreActor [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self, !Task.isCancelled else { return }
                for partition in self.all where partition.state == .play { partition.keepHeardPosition(announce: false) }
            }
        }
    }
}
