/// Identifies a scheduled timer so it can be cancelled.
public struct TimerID: Hashable, Sendable {
    let sequence: UInt64
}

/// A binary min-heap of deadlines; cancelled entries are dropped lazily when they surface.
@CoreActor
struct TimerQueue {
    private struct Entry {
        let deadline: UInt64
        let id: TimerID
    }

    private var heap: [Entry] = []
    private var actions: [TimerID: @CoreActor () -> Void] = [:]
    private var sequence: UInt64 = 0

    var nextDeadline: UInt64? {
        mutating get {
            dropCancelled()
            return heap.first?.deadline
        }
    }

    mutating func insert(deadline: UInt64, action: @escaping @CoreActor () -> Void) -> TimerID {
        sequence += 1
        let id = TimerID(sequence: sequence)
        actions[id] = action
        heap.append(Entry(deadline: deadline, id: id))
        siftUp(heap.count - 1)
        return id
    }

    mutating func cancel(_ id: TimerID) {
        actions[id] = nil
    }

    /// Removes and returns the actions whose deadline has passed; the caller runs them, so an
    /// action may schedule new timers without touching the queue mid-mutation.
    mutating func popDue(now: UInt64) -> [@CoreActor () -> Void] {
        var due: [@CoreActor () -> Void] = []
        while let first = heap.first, first.deadline <= now {
            popFirst()
            if let action = actions.removeValue(forKey: first.id) { due.append(action) }
        }
        return due
    }

    private mutating func dropCancelled() {
        while let first = heap.first, actions[first.id] == nil { popFirst() }
    }

    private mutating func popFirst() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        if !heap.isEmpty { siftDown(0) }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count && heap[right].deadline < heap[smallest].deadline { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
