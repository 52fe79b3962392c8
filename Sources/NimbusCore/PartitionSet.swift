import NimbusDecoder
import NimbusModel
import NimbusPCM
import NimbusPlayer
import NimbusSupport

/// Every partition of the daemon, the default one first, and what they share: where songs
/// are opened, the configured ReplayGain arithmetic, the idle bus and the state file. A
/// partition reaches these through its set instead of through closures someone must remember
/// to install.
@CoreActor
public final class PartitionSet {
    public private(set) var all: [Partition] = []
    public let songs: any SongOpening
    /// `replaygain_preamp`, `replaygain_missing_preamp`, `replaygain_limit`; each partition
    /// adds its own `replay_gain_mode`.
    public let replayGain: ReplayGainSettings
    public let maxQueueLength: Int
    /// The configured resampler (`resampler` block), for every player's conversions.
    public let rates: RateConversion
    /// Seconds the sleep timer fades the sound before it pauses (`sleep_fade`).
    public var sleepFade: Double = 10
    /// Resume positions of long songs; nil: none kept.
    public var resume: ResumePolicy?
    var resumeSaver: Task<Void, Never>?
    let idle: IdleBus
    let logger: Logger
    /// Saves the partitions a second after a change; nil when there is no state file.
    public private(set) var stateKeeper: StateKeeper?

    public init(
        idle: IdleBus, songs: any SongOpening, replayGain: ReplayGainSettings = ReplayGainSettings(),
        rates: RateConversion = .standard, remoteTagWork: BlockingWork = BlockingWork(name: "remote-tags", limit: 2), maxQueueLength: Int = 16384, logger: Logger = .silent
    ) {
        self.idle = idle
        self.logger = logger
        self.songs = songs
        self.replayGain = replayGain
        self.maxQueueLength = maxQueueLength
        self.rates = rates
        remoteTags = RemoteTags(songs: songs, workers: remoteTagWork)
        all = [Partition(name: "default", home: self)]
        remoteTags.arrived = { [unowned self] uri, result in
            for partition in self.all { partition.remoteTagsArrived(uri, result) }
        }
    }

    /// Tags of URLs in the queues, read in the background.
    let remoteTags: RemoteTags

    public var defaultPartition: Partition { all[0] }

    public func named(_ name: String) -> Partition? { all.first { $0.name == name } }

    /// Creates a partition (`newpartition`, or a state file naming one).
    @discardableResult
    public func add(named name: String) -> Partition {
        let partition = Partition(name: name, home: self)
        all.append(partition)
        stateChanged()
        return partition
    }

    public func remove(_ partition: Partition) {
        guard partition !== defaultPartition else { return }
        partition.shutdown()
        all.removeAll { $0 === partition }
        stateChanged()
    }

    /// Starts keeping the state file at `path` (nothing is written before `restore`).
    public func keepState(at path: String, interval: Duration, logger: Logger) {
        stateKeeper = StateKeeper(path: path, logger: logger, interval: interval) { [unowned self] in self.all }
    }

    func events(_ events: IdleEvents, of partition: Partition) {
        idle.emit(events, partition: partition.name)
    }

    func stateChanged() { stateKeeper?.changed() }

    /// Partitions, queues, options, outputs, volume and positions from the state file, then
    /// saving begins. `resolve` finds library songs again (nil drops an entry whose file is
    /// gone); outputs listed under another partition move there first.
    public func restore(restorePaused: Bool, resolve: (SavedState.Entry) -> Song?) {
        defer { stateKeeper?.start() }
        guard let saved = stateKeeper?.read() else { return }
        for state in saved {
            let partition = named(state.partition) ?? add(named: state.partition)
            for (name, _) in state.outputs {
                for other in all where other !== partition {
                    if let output = other.outputs.all.first(where: { $0.name == name && !$0.isPlaceholder }) {
                        other.outputs.release(output)
                        partition.outputs.adopt(output)
                    }
                }
            }
            partition.restore(state, restorePaused: restorePaused, resolve: resolve)
        }
    }

    /// Saves a last time and stops every player (daemon shutdown).
    public func shutdown() {
        stateKeeper?.save(synchronously: true)
        for partition in all { partition.shutdown() }
    }
}
