import Glibc
import NimbusCore
import NimbusModel
import NimbusProtocol
import NimbusSupport

/// One connected MPD client: its socket and its per-connection settings (permissions, tag
/// mask, binary limit, partition, mailbox). The protocol rules live in `SessionMachine`; this
/// object only moves bytes and runs commands. Lives on the core loop; costs a descriptor and
/// a few buffers, never a thread.
@CoreActor
public final class Client: IdleListener, CommandSession {
    /// Connected through a Unix socket (MPD's "local client").
    public let isLocal: Bool
    /// The client's name in the log, as MPD names it: the peer's address (`127.0.0.1:46208`)
    /// or, on a Unix socket, its process and user (`pid=812 uid=1000`).
    public let address: String
    public var permission: Permission
    public var tagMask: TagMask
    public var binaryLimit = 8192
    /// `protocol enable …`: MPD 0.24 behaviour the client asked for.
    public var protocolFeatures: Set<ProtocolFeature> = []
    public var output = ResponseWriter()
    /// The partition this client controls (`partition NAME` switches).
    public var partition: Partition
    public private(set) lazy var mailbox = Mailbox { [unowned self] in self.addIdle(.message) }

    let fd: Int32
    unowned let server: Server
    /// The server's reactor and command table, held here: reaching them through the unowned
    /// `server` cost a strong retain through a side table on every command.
    let reactor: Reactor
    let table: CommandTable
    let context: ServerContext
    var session: SessionMachine
    /// `log_level "verbose"`: every command is logged (decided once, not per command).
    let logsCommands: Bool
    var unsent: [UInt8] = []
    var unsentOffset = 0
    /// The socket refused more output; reading pauses until it drains.
    var writeBlocked = false
    var notifyScheduled = false
    /// Wrong `password` commands on this connection (guessing is slowed down, then cut off).
    public var wrongPasswords = 0
    var timeoutTimer: TimerID?
    public internal(set) var isClosed = false
    var closeAfterFlush = false

    init(fd: Int32, isLocal: Bool, address: String, server: Server) {
        self.fd = fd
        self.isLocal = isLocal
        self.address = address
        self.server = server
        self.context = server.context
        self.reactor = server.reactor
        self.table = server.table
        let settings = server.context.settings
        self.permission = isLocal ? settings.localPermissions : settings.defaultPermissions
        self.tagMask = settings.enabledTags
        self.partition = server.context.partitions.defaultPartition
        session = SessionMachine(commandListLimit: settings.maxCommandListSize, now: MonotonicClock.now())
        logsCommands = server.context.logger.isEnabled(.debug)
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
        guard !isClosed, session.idleEventsOccurred(events), !notifyScheduled else { return }
        notifyScheduled = true
        reactor.atEndOfIteration {
            self.notifyScheduled = false
            guard !self.isClosed, let fired = self.session.takeIdleAnswer(now: MonotonicClock.now()) else { return }
            self.writeIdleAnswer(fired)
            self.flush()
        }
    }

    func writeIdleAnswer(_ fired: IdleEvents) {
        for name in fired.names { output.field("changed", name) }
        output.ok()
    }
}
