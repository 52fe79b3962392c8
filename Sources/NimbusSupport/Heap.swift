import CLinux
import Dispatch
import Synchronization

/// What the C heap keeps after a burst of work. glibc gives each thread that allocates an
/// arena of its own (up to eight per core) and returns freed memory to the kernel only from
/// the top of the main heap, so after a library update the scanning threads' arenas stay
/// resident: 40 MB of a 50,000-song update on a 2-core box, measured with `make bench scale`.
public enum Heap {
    /// Caps the number of arenas (set once at start, before threads are made). The daemon
    /// uses one: with two, each update's threads were given one arena or the other by turns,
    /// so a rescanned library's tree was built now in the arena its old copy was freed from,
    /// now in the other, among the holes earlier trees left there — a 50,000-song rescan left
    /// 21 to 32 MB of private memory as it fell. With one, the new tree fills what the scan
    /// just freed and the old tree's pages go back whole: 21 MB after every rescan. A full
    /// update of 50,000 songs costs about a second more (tag scanning threads share its lock).
    public static func limitArenas(_ count: Int32) {
        _ = clinux_limit_arenas(count)
    }

    private static let trimmer = DispatchQueue(label: "nimbus-heap-trim", qos: .utility)

    /// Hands free pages of every arena back to the kernel, on a thread of its own (a trim of
    /// a large heap takes milliseconds and must not hold up the core loop).
    public static func returnFreeMemory() {
        trimmer.async { _ = clinux_malloc_trim() }
    }

    private static let trimPending = Atomic<Bool>(false)

    /// After a burst that freed much in small pieces — a queue of thousands cleared or filled,
    /// a long answer sent: freed chunks scattered through the heap stay resident (`make bench
    /// scale`: 50,000 songs queued and listed three times left 40 MB above the live heap).
    /// One trim a second later, so the state file written for the change is freed too, and
    /// bursts in between share it.
    public static func returnFreeMemorySoon() {
        guard !trimPending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        trimmer.asyncAfter(deadline: .now() + 1) {
            trimPending.store(false, ordering: .releasing)
            _ = clinux_malloc_trim()
        }
    }

    /// Queue edits of at least this many songs, and answers of at least this many bytes, are
    /// bursts worth a trim (a trim of a large heap costs a few milliseconds off the core loop).
    public static let burstSongs = 1000
    public static let burstBytes = 1 << 20
}
