import Foundation
import Glibc
import NimbusModel
import NimbusSupport

/// Discards audio at the speed it would play (MPD's null output with `sync "yes"`), so a
/// daemon without a sound card keeps real time.
public final class NullOutput: AudioOutput {
    private var format = AudioFormat(sampleRate: 44100, sample: .s16, channels: 2)
    /// Monotonic nanoseconds at which everything written so far has been "heard".
    private var playedUntil: UInt64 = 0
    private let paced: Bool
    // Invariant: `interrupted` is only touched with `wakeup` locked.
    private let wakeup = NSCondition()
    private var interrupted = false

    public init(paced: Bool = true) { self.paced = paced }

    public func open(_ format: AudioFormat) throws(OutputError) -> AudioFormat {
        self.format = format
        playedUntil = MonotonicClock.now()
        return format
    }

    public func play(_ pcm: UnsafeRawBufferPointer) throws(OutputError) {
        guard paced else { return }
        let frames = UInt64(pcm.count / format.frameBytes)
        let now = MonotonicClock.now()
        playedUntil = max(playedUntil, now) + frames * 1_000_000_000 / UInt64(format.sampleRate)
        // Keep at most 100 ms "in the device", like a real buffer.
        let ahead = playedUntil > now ? playedUntil - now : 0
        if ahead > 100_000_000 { pace(nanoseconds: ahead - 100_000_000) }
    }

    /// Sleeps like a device with a full buffer would block, but wakes for `interrupt()`, so a
    /// stop or seek is not held up by up to a chunk's duration.
    private func pace(nanoseconds: UInt64) {
        let deadline = Date().addingTimeInterval(Double(nanoseconds) / 1e9)
        wakeup.withLock {
            while !interrupted && wakeup.wait(until: deadline) {}
            interrupted = false
        }
    }

    public func interrupt() {
        wakeup.withLock {
            interrupted = true
            wakeup.broadcast()
        }
    }

    public func drain() {
        let now = MonotonicClock.now()
        if paced, playedUntil > now { Self.sleep(nanoseconds: playedUntil - now) }
    }

    public func cancel() {
        playedUntil = MonotonicClock.now()
        wakeup.withLock { interrupted = false }
    }
    public func pause() -> Bool {
        cancel()
        return true
    }
    public func resume() { playedUntil = MonotonicClock.now() }
    public func close() {}

    public var delayFrames: Int {
        let now = MonotonicClock.now()
        guard paced, playedUntil > now else { return 0 }
        return Int((playedUntil - now) * UInt64(format.sampleRate) / 1_000_000_000)
    }

    static func sleep(nanoseconds: UInt64) {
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}

/// `type "null"`: discards audio at real time, or as fast as it comes with `sync "no"`.
public struct NullOutputPlugin: OutputPlugin {
    public let type = "null"
    public init() {}

    public func configure(_ configuration: OutputConfiguration) throws(OutputError) -> OutputDefinition {
        let paced = configuration.flag("sync", default: true)
        return OutputDefinition { NullOutput(paced: paced) }
    }
}
