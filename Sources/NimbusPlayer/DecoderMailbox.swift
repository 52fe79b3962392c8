import Foundation
import NimbusInput

/// What the core asks of the decoder thread, in the order it asked (MPD's DecoderCommand).
enum DecoderCommand {
    /// Drop everything and decode `item`; `fadingOut`: the song a skip leaves, opened where
    /// it was heard, fades out under it.
    case start(PlayItem, fadingOut: PlayItem?)
    /// Drop the song `from` (and whatever came after it) unless some of it was heard, and
    /// decode `with` instead (nil: the queue ends there).
    case replace(from: UInt64, with: PlayItem?)
    case stop
    case shutdown
}

/// The decoder thread's mailbox: commands in order, plus two things the thread reads when
/// it needs them rather than as commands — the follower the core named, and the crossfade
/// settings. A command interrupts a read stuck waiting for the network (under the lock, so
/// the thread never takes the command but keeps the interrupt); naming a follower and
/// changing the settings do not.
final class DecoderMailbox: @unchecked Sendable {
    // Invariant: every field is only touched with `condition` locked.
    private let condition = NSCondition()
    private var commands: [DecoderCommand] = []
    /// The song that follows `after` (nil item: the queue ends there).
    private var follower: (after: UInt64, item: PlayItem?)?
    private var crossfade = CrossfadeSettings()
    private var changed = false
    private let interrupt: ReadInterrupt
    private let wakes: HeldWakes

    init(interrupt: ReadInterrupt, wakes: HeldWakes) {
        self.interrupt = interrupt
        self.wakes = wakes
    }

    /// What the thread takes in one go.
    struct Batch {
        var commands: [DecoderCommand]
        var crossfade: CrossfadeSettings
        /// Anything arrived since the last batch (a new follower or new settings may allow a
        /// fade that was ruled out).
        var changed: Bool
    }

    /// Queues `command`. A start or a stop makes everything queued before it moot; a start
    /// names its first song's follower with it, a stop forgets the follower.
    func post(_ command: DecoderCommand, follower: (after: UInt64, item: PlayItem?)? = nil) {
        condition.withLock {
            switch command {
            case .start, .stop:
                commands.removeAll { if case .shutdown = $0 { false } else { true } }
                self.follower = follower
            case .shutdown:
                commands.removeAll()
            case .replace:
                break
            }
            commands.append(command)
            changed = true
            interrupt.interrupt()
        }
        wakeThread()
    }

    /// The core's answer to `.decoding(after)`, or a correction not yet taken up.
    func name(_ item: PlayItem?, after token: UInt64) {
        condition.withLock {
            follower = (token, item)
            changed = true
        }
        wakeThread()
    }

    func setCrossfade(_ settings: CrossfadeSettings) {
        condition.withLock {
            crossfade = settings
            changed = true
        }
        wakeThread()
    }

    /// After the change was made under the lock, a broadcast under it too: a thread that
    /// checked before it slept hears it; one that checks later sees the change.
    private func wakeThread() {
        wakes.send { [condition] in condition.withLock { condition.broadcast() } }
    }

    /// Takes what arrived; with `waiting`, first sleeps until something does.
    func take(waiting: Bool) -> Batch {
        condition.withLock {
            while waiting && !changed { condition.wait() }
            let batch = Batch(commands: commands, crossfade: crossfade, changed: changed)
            if changed { interrupt.reset() }
            commands.removeAll()
            changed = false
            return batch
        }
    }

    /// The follower of `token` if the core named it (`.some(nil)`: the queue ends there);
    /// `taking` clears it.
    func follower(after token: UInt64, taking: Bool) -> PlayItem?? {
        condition.withLock { () -> PlayItem?? in
            guard let follower, follower.after == token else { return nil }
            if taking { self.follower = nil }
            return .some(follower.item)
        }
    }
}
