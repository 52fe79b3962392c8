import Glibc
import NimbusModel
import NimbusProtocol

/// MPD's line discipline for one connection as a value: bytes and events go in, actions come
/// out, and nothing here touches a socket, so every rule is tested without one.
///
/// The rules (MPD's client_process_line): a request line must fit the 8 KiB input buffer
/// (MPD closes the connection; Nimbus drops the line up to its newline and answers
/// `Line too long`, so one oversized request loses nothing else); `noidle` ends an idle with `OK` and is ignored otherwise; any other line during idle
/// closes the connection; `command_list_begin`/`command_list_ok_begin` … `command_list_end`
/// collect lines up to `max_command_list_size` and run them in order, stopping at the first
/// failure; a single command may answer later (deferred), and nothing more is read meanwhile.
struct SessionMachine {
    /// What the connection must do next.
    enum Action: Equatable {
        /// Run one request line; report the outcome with `completed(_:)` before asking again.
        /// `index` is its position in a command list (0 outside one); only a command outside a
        /// list may be `deferrable`.
        case execute(line: ArraySlice<UInt8>, index: Int, deferrable: Bool)
        case writeOK
        case writeListOK
        /// Write one `changed:` line per event, then `OK`.
        case answerIdle(IdleEvents)
        /// Drop the connection, discarding unsent output.
        case close(CloseReason)
        /// Send what is pending, then drop the connection.
        case finish
        /// Stop the daemon (`kill`).
        case kill
        /// A line longer than the input buffer was dropped: answer an ACK for `command` (the
        /// line's first word, when it had one) and go on with the next line.
        case rejectLongLine(command: String)
    }

    enum CloseReason: Equatable {
        case malformedRequest, commandDuringIdle, idleInCommandList, commandListTooLong, outputBufferFull
    }

    /// How an `execute` went.
    enum Completion: Equatable {
        case ok
        /// An ACK was written.
        case failed
        /// The command put the client into idle on these events.
        case idle(IdleEvents)
        /// The answer comes later from another thread (`deferredFinished`).
        case deferred
        case close(CloseReason)
        case finish
        case kill
    }

    /// MPD's input buffer: a request line, newline included, must fit.
    static let inputCapacity = 8192

    private enum Mode {
        case ready
        /// Collecting a command list into `list`.
        case collecting
        /// Running `list`; `listNext` is the line to run after the current one.
        case runningList
        case idle(IdleEvents)
        case deferred
        case closed
    }

    private var input = [UInt8](repeating: 0, count: SessionMachine.inputCapacity)
    private var inputCount = 0
    /// Bytes before this have been taken as lines.
    private var consumed = 0
    private var mode = Mode.ready
    /// An `execute` was handed out and its completion is due.
    private var executing = false
    /// The command list being collected or run (kept out of `mode`, so running a list does
    /// not copy it for every line).
    private var list = CommandListBuilder(okMode: false)
    private var listNext = 0
    /// Set while the rest of an overlong line is dropped: the command it started with.
    private var overlong: String?
    /// An action decided but not yet handed out (there is never more than one).
    private var queued: Action?
    /// Events that happened since the client last heard of them.
    private(set) var pendingIdle: IdleEvents = []
    /// The socket refused output: nothing more is read or run until it drains.
    var outputBlocked = false
    /// When the last complete line arrived or an answer went out (the timeout's clock): a line
    /// trickling in byte by byte is silence.
    private(set) var lastActivity: UInt64
    let commandListLimit: Int

    init(commandListLimit: Int, now: UInt64) {
        self.commandListLimit = commandListLimit
        lastActivity = now
    }

    // MARK: input

    /// Lets `read` fill the free part of the buffer; false when there is no room because
    /// complete lines wait in all of it (they are taken once the client may go on). A pending
    /// line longer than the buffer is dropped to make room (`rejectLongLine`).
    mutating func receive(_ read: (UnsafeMutableRawBufferPointer) -> Int) -> (fits: Bool, count: Int) {
        compact()
        if inputCount == Self.inputCapacity, !input[..<inputCount].contains(0x0A) {
            if overlong == nil { overlong = Self.commandWord(input[..<inputCount]) }
            inputCount = 0
        }
        let free = Self.inputCapacity - inputCount
        guard free > 0 else { return (false, 0) }
        let start = inputCount
        let count = input.withUnsafeMutableBytes { raw in read(UnsafeMutableRawBufferPointer(rebasing: raw[start...])) }
        if count > 0 { inputCount += count }
        return (true, count)
    }

    private mutating func compact() {
        guard consumed > 0 else { return }
        let remaining = inputCount - consumed
        if remaining > 0 {
            let from = consumed
            input.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress!.update(from: buffer.baseAddress! + from, count: remaining)
            }
        }
        inputCount = remaining
        consumed = 0
    }

    // MARK: driving

    var isClosed: Bool {
        if case .closed = mode { return true }
        return false
    }

    var isIdle: Bool {
        if case .idle = mode { return true }
        return false
    }

    var isAwaitingDeferred: Bool {
        if case .deferred = mode { return true }
        return false
    }

    /// The connection timeout does not run while idling or waiting for a deferred answer.
    var isExemptFromTimeout: Bool { isIdle || isAwaitingDeferred }

    /// The next thing to do, or nil until more bytes or an event arrive.
    mutating func next(now: UInt64) -> Action? {
        if let action = queued {
            queued = nil
            return take(action)
        }
        guard !executing, !outputBlocked else { return nil }
        while true {
            switch mode {
            case .closed, .deferred:
                return nil
            case .runningList:
                let index = listNext
                guard index < list.lines.count else {
                    mode = .ready
                    list.reset(okMode: false)
                    return .writeOK
                }
                executing = true
                return .execute(line: list.line(index), index: index, deferrable: false)
            case .ready, .collecting, .idle:
                if let command = overlong {
                    guard dropThroughNewline(now: now) else { return nil }
                    overlong = nil
                    return take(rejectLongLine(command))
                }
                guard let line = takeLine(now: now) else { return nil }
                if let action = handle(line) { return take(action) }
            }
        }
    }

    /// One complete line, trailing whitespace trimmed, or nil.
    private mutating func takeLine(now: UInt64) -> ArraySlice<UInt8>? {
        guard let newline = newlineIndex() else { return nil }
        let line = Tokenizer.trimmedLine(input[consumed..<newline])
        consumed = newline + 1
        lastActivity = now
        return line
    }

    /// The first newline not yet taken, found by `memchr` on the buffer (a slice's search
    /// retains and releases the array for every line).
    private func newlineIndex() -> Int? {
        let (start, count) = (consumed, inputCount - consumed)
        guard count > 0 else { return nil }
        return input.withUnsafeBufferPointer { buffer in
            memchr(buffer.baseAddress! + start, 0x0A, count).map { buffer.baseAddress!.distance(to: $0.assumingMemoryBound(to: UInt8.self)) }
        }
    }

    /// Drops what arrived of an overlong line; true once its newline was dropped too.
    private mutating func dropThroughNewline(now: UInt64) -> Bool {
        guard let newline = input[consumed..<inputCount].firstIndex(of: 0x0A) else {
            consumed = inputCount
            return false
        }
        consumed = newline + 1
        lastActivity = now
        return true
    }

    /// An overlong line ended: an ACK as for a failed command (a command list being
    /// collected is dropped with it; during idle it is a command like any other).
    private mutating func rejectLongLine(_ command: String) -> Action {
        switch mode {
        case .idle: return .close(.commandDuringIdle)
        case .collecting:
            mode = .ready
            list.reset(okMode: false)
        default: break
        }
        return .rejectLongLine(command: command)
    }

    /// The first word of a line, if it looks like a command name (for the ACK's `{…}`).
    static func commandWord(_ bytes: ArraySlice<UInt8>) -> String {
        let word = bytes.prefix { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A }
        guard !word.isEmpty, word.count <= 32, word.allSatisfy({ (0x61...0x7A).contains($0) || $0 == 0x5F || (0x30...0x39).contains($0) }) else { return "" }
        return String(decoding: word, as: UTF8.self)
    }

    /// Whether `line` is exactly `word`: a length check and one memcmp, as every line of every
    /// command list is compared with four words (the generic `elementsEqual` was 2.5% of a
    /// `status` inside a list).
    private static func line(_ line: ArraySlice<UInt8>, is word: StaticString) -> Bool {
        guard line.count == word.utf8CodeUnitCount else { return false }
        return line.withUnsafeBufferPointer { memcmp($0.baseAddress!, word.utf8Start, word.utf8CodeUnitCount) == 0 }
    }

    private mutating func handle(_ line: ArraySlice<UInt8>) -> Action? {
        // MPD 0.24 closes a client that puts a bare `idle` or `noidle` into a command list
        // (`idle player` there still enters idle after the list, as before).
        if case .collecting = mode, Self.line(line, is: "idle") || Self.line(line, is: "noidle") {
            return .close(.idleInCommandList)
        }
        if Self.line(line, is: "noidle") {
            // A stray noidle (the idle answer already went out) gets no reply: ncmpcpp relies on it.
            guard isIdle else { return nil }
            mode = .ready
            return .writeOK
        }
        switch mode {
        case .idle:
            return .close(.commandDuringIdle)
        case .collecting:
            if Self.line(line, is: "command_list_end") {
                mode = .runningList
                listNext = 0
                return nil
            }
            guard list.add(line, limit: commandListLimit) else { return .close(.commandListTooLong) }
            return nil
        default:
            break
        }
        if Self.line(line, is: "command_list_begin") || Self.line(line, is: "command_list_ok_begin") {
            mode = .collecting
            list.reset(okMode: line.count == "command_list_ok_begin".utf8.count)
            return nil
        }
        executing = true
        return .execute(line: line, index: 0, deferrable: true)
    }

    /// Closing actions end the session: whatever else was decided is dropped.
    private mutating func take(_ action: Action) -> Action {
        switch action {
        case .close, .finish, .kill:
            mode = .closed
            queued = nil
            list.reset(okMode: false)
        default:
            break
        }
        return action
    }

    /// The outcome of the last `execute`.
    mutating func completed(_ completion: Completion, now: UInt64) {
        precondition(executing, "completed without an execute")
        executing = false
        var inList = false
        if case .runningList = mode { inList = true }
        switch completion {
        case .ok:
            if inList {
                if list.okMode { queued = .writeListOK }
                listNext += 1
            } else {
                queued = .writeOK
            }
        case .failed:
            mode = .ready
            list.reset(okMode: false)
        case .idle(let subscriptions):
            mode = .idle(subscriptions)
            list.reset(okMode: false)
            if let fired = takeIdleAnswer(now: now) { queued = .answerIdle(fired) }
        case .deferred:
            mode = .deferred
        case .close(let reason):
            queued = .close(reason)
        case .finish:
            queued = .finish
        case .kill:
            queued = .kill
        }
    }

    /// A deferred command's answer was written (with its ACK when it failed).
    mutating func deferredFinished(succeeded: Bool, now: UInt64) {
        guard isAwaitingDeferred else { return }
        mode = .ready
        lastActivity = now
        if succeeded { queued = .writeOK }
    }

    // MARK: idle

    /// Records events; true when the client idles on one of them and should be answered.
    mutating func idleEventsOccurred(_ events: IdleEvents) -> Bool {
        guard !isClosed else { return false }
        pendingIdle.formUnion(events)
        guard case .idle(let subscriptions) = mode else { return false }
        return !pendingIdle.isDisjoint(with: subscriptions)
    }

    /// Ends the idle with the subscribed events that happened. Only those are consumed (MPD
    /// 0.24's fix: 0.23 lost the others), so a client idling on `player` still learns about
    /// `mixer` later.
    mutating func takeIdleAnswer(now: UInt64) -> IdleEvents? {
        guard case .idle(let subscriptions) = mode else { return nil }
        let fired = pendingIdle.intersection(subscriptions)
        guard !fired.isEmpty else { return nil }
        pendingIdle.subtract(fired)
        mode = .ready
        lastActivity = now
        return fired
    }
}

/// Accumulates a `command_list_begin … command_list_end` block, bounded like MPD's. Lines
/// are kept in one byte buffer so a long list costs appends, not one array per line.
struct CommandListBuilder {
    private(set) var okMode: Bool
    private(set) var text: [UInt8] = []
    private(set) var lines: [Range<Int>] = []

    init(okMode: Bool) { self.okMode = okMode }

    /// Empties the list for the next one, keeping its buffers' capacity.
    mutating func reset(okMode: Bool) {
        self.okMode = okMode
        text.removeAll(keepingCapacity: true)
        lines.removeAll(keepingCapacity: true)
    }

    func line(_ index: Int) -> ArraySlice<UInt8> { text[lines[index]] }

    /// False once the accumulated text (each line plus one byte) exceeds `limit`.
    mutating func add(_ line: ArraySlice<UInt8>, limit: Int) -> Bool {
        guard text.count + lines.count + line.count + 1 <= limit else { return false }
        let start = text.count
        text.append(contentsOf: line)
        lines.append(start..<text.count)
        return true
    }
}
