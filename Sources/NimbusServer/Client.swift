import Glibc
import NimbusCore
import NimbusModel
import NimbusProtocol
import NimbusSupport

/// One connected MPD client: its socket, its protocol state (command list, idle, permissions,
/// tag mask, binary limit) and its mailbox. Lives on the core loop; costs a descriptor and a
/// few buffers, never a thread.
@CoreActor
public final class Client: IdleListener {
    /// MPD's input buffer: a request line, newline included, must fit.
    static let inputCapacity = 8192

    public let number: Int
    /// Connected through a Unix socket (MPD's "local client").
    public let isLocal: Bool
    public var permission: Permission
    public var tagMask: TagMask
    public var binaryLimit = 8192
    public var output = ResponseWriter()
    /// The partition this client controls (`partition NAME` switches).
    public var partition: Partition
    public private(set) lazy var mailbox = Mailbox { [unowned self] in self.addIdle(.message) }

    let fd: Int32
    unowned let server: Server
    let context: ServerContext

    var input = [UInt8](repeating: 0, count: Client.inputCapacity)
    var inputCount = 0
    var unsent: [UInt8] = []
    var unsentOffset = 0
    /// The socket refused more output; reading pauses until it drains.
    var writeBlocked = false
    /// A deferred command is running on a blocking thread: reading and processing pause.
    var awaitingWork = false
    var commandList: CommandListBuilder?
    var idleWaiting = false
    var idleSubscriptions: IdleEvents = []
    var idleFlags: IdleEvents = []
    var notifyScheduled = false
    var lastActivity = MonotonicClock.now()
    var timeoutTimer: TimerID?
    public internal(set) var isClosed = false
    var closeAfterFlush = false

    init(number: Int, fd: Int32, isLocal: Bool, server: Server) {
        self.number = number
        self.fd = fd
        self.isLocal = isLocal
        self.server = server
        self.context = server.context
        let settings = server.context.settings
        self.permission = isLocal ? settings.localPermissions : settings.defaultPermissions
        self.tagMask = settings.enabledTags
        self.partition = server.context.defaultPartition
    }

    public var idlePartition: String { partition.name }

    /// Tags this client sees in song records: its mask within the server's enabled tags.
    public var visibleTags: TagMask { tagMask.intersection(context.settings.enabledTags) }

    // MARK: idle

    public func idleEventsOccurred(_ events: IdleEvents) {
        addIdle(events)
    }

    /// Records `events` for this client and, if it idles on any of them, answers once at the end
    /// of the loop iteration.
    public func addIdle(_ events: IdleEvents) {
        guard !isClosed else { return }
        idleFlags.formUnion(events)
        guard idleWaiting, !idleFlags.isDisjoint(with: idleSubscriptions), !notifyScheduled else { return }
        notifyScheduled = true
        server.reactor.atEndOfIteration {
            self.notifyScheduled = false
            guard self.idleWaiting, !self.idleFlags.isDisjoint(with: self.idleSubscriptions) else { return }
            self.answerIdle()
            self.flush()
        }
    }

    /// Enters idle; the session answers at once after the command if an event is already pending.
    func enterIdle(_ subscriptions: IdleEvents) {
        idleWaiting = true
        idleSubscriptions = subscriptions
    }

    func answerIdleIfPending() {
        if idleWaiting && !idleFlags.isDisjoint(with: idleSubscriptions) { answerIdle() }
    }

    /// Writes the `changed:` lines. Only subscribed flags are consumed (MPD 0.24's fix: 0.23 lost
    /// the others), so a client idling on `player` still learns about `mixer` later.
    private func answerIdle() {
        let fired = idleFlags.intersection(idleSubscriptions)
        idleFlags.subtract(fired)
        idleWaiting = false
        for name in fired.names { output.field("changed", name) }
        output.ok()
        lastActivity = MonotonicClock.now()
    }

    func cancelIdle() {
        idleWaiting = false
        output.ok()
        lastActivity = MonotonicClock.now()
    }
}

/// Accumulates a `command_list_begin … command_list_end` block, bounded like MPD's. Lines
/// are kept in one byte buffer so a long list costs appends, not one array per line.
struct CommandListBuilder {
    let okMode: Bool
    private(set) var text: [UInt8] = []
    private(set) var lines: [Range<Int>] = []

    init(okMode: Bool) { self.okMode = okMode }

    /// False once the accumulated text (each line plus one byte) exceeds `limit`.
    mutating func add(_ line: ArraySlice<UInt8>, limit: Int) -> Bool {
        guard text.count + lines.count + line.count + 1 <= limit else { return false }
        let start = text.count
        text.append(contentsOf: line)
        lines.append(start..<text.count)
        return true
    }
}
