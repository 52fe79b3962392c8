import NimbusSupport

/// One partition's sleep timer at work: keeps the `SleepTimer` value, wakes itself when the
/// value has something to do (the deadline, each fade step of a tenth of a second) and
/// carries its steps out on the partition. Waiting is a suspended task on the core loop,
/// never a blocked thread.
@CoreActor
public final class PartitionSleep {
    private unowned let partition: Partition
    public private(set) var timer: SleepTimer
    /// The player must not go on to the next song ("end of song").
    public private(set) var stopsAfterCurrent = false
    private var wake: Task<Void, Never>?
    private let clock = ContinuousClock()
    private let origin: ContinuousClock.Instant

    init(partition: Partition, fade: Double) {
        self.partition = partition
        timer = SleepTimer(fade: fade)
        origin = clock.now
    }

    private var now: Double {
        let elapsed = clock.now - origin
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    public func set(_ request: SleepTimer.Request) {
        carry(timer.request(request, now: now))
        schedule()
    }

    /// For `status`: seconds until the fade starts, or what is left of the current song when
    /// the timer waits for its end; nil when no timer is set.
    public var secondsLeft: Int? {
        // Asked by every `status`: no clock reading (and no Duration arithmetic) without a timer.
        if case .off = timer.phase { return nil }
        if timer.phase == .endOfSong {
            guard let duration = partition.durationMilliseconds else { return 0 }
            return max(0, (duration - partition.elapsedMilliseconds + 999) / 1000)
        }
        return timer.secondsLeft(now: now)
    }

    /// Pause or stop by anyone ends a fade under way.
    func playbackHalted() { carry(timer.playbackHalted()) }

    /// The song the timer waited for ended.
    func songEnded() { carry(timer.songEnded()) }

    private func schedule() {
        wake?.cancel()
        wake = nil
        guard let next = timer.nextTick(now: now) else { return }
        let delay = max(0, next - now)
        wake = Task { @CoreActor [weak self] in
            try? await Task.sleep(for: .milliseconds(Int(delay * 1000)))
            guard !Task.isCancelled, let self else { return }
            self.carry(self.timer.tick(now: self.now))
            self.schedule()
        }
    }

    private func carry(_ steps: [SleepTimer.Step]) {
        for step in steps {
            switch step {
            case .level(let factor):
                partition.outputs.setFade(factor)
            case .pause:
                if partition.state == .play { partition.pause(true) }
            case .stopAfterCurrent(let stop):
                stopsAfterCurrent = stop
                partition.refreshNext()
            case .announce:
                partition.onEvents(.options)
            }
        }
    }
}
