import NimbusCore
import NimbusModel
import NimbusProtocol
import NimbusSupport

/// What a handler tells the session to do next.
public enum CommandResult: Sendable {
    case ok
    /// The client now idles on these events; no `OK` until one happens or `noidle`.
    case idle(IdleEvents)
    /// Close without flushing (`close`).
    case close
    /// Stop the daemon (`kill`).
    case kill
    /// The response needs blocking work (the network): it runs on a `BlockingWork` thread
    /// while this client's later commands wait, and other clients are served meanwhile; the
    /// step it returns then runs back on the core loop (a change to the queue with what was
    /// fetched) and writes the answer. Inside a command list both run in place.
    case deferred(@Sendable () throws -> DeferredCompletion)
    /// The answer goes out after `delay` (a guessed password is answered slowly): a timer,
    /// not a thread — nothing blocks meanwhile, and the client's later commands wait behind it.
    case afterDelay(Duration, @Sendable () throws -> ResponseWriter)
}

/// The core-loop half of a deferred command: it gets what the blocking half found.
public typealias DeferredCompletion = @CoreActor @Sendable () throws -> ResponseWriter

extension CommandResult {
    /// A deferred answer whose blocking half writes the whole response.
    static func offLoop(_ work: @escaping @Sendable () throws -> ResponseWriter) -> CommandResult {
        .deferred {
            let response = try work()
            return { response }
        }
    }
}

/// What a command may see and change of the connection that sent it: its partition, its
/// permissions and the settings MPD keeps per connection — not its socket, its buffers or the
/// server.
@CoreActor
public protocol CommandSession: AnyObject {
    /// The partition this connection controls (`partition NAME` switches it).
    var partition: Partition { get set }
    var permission: Permission { get set }
    var tagMask: TagMask { get set }
    /// The tags song records show it: its mask within the server's enabled tags.
    var visibleTags: TagMask { get }
    var binaryLimit: Int { get set }
    var protocolFeatures: Set<ProtocolFeature> { get set }
    /// Connected through a Unix socket (MPD's "local client").
    var isLocal: Bool { get }
    /// Its name in the log (`127.0.0.1:46208`, `pid=812 uid=1000`).
    var address: String { get }
    /// Its client-to-client messages.
    var mailbox: Mailbox { get }
    /// Wrong `password` commands so far (guessing is slowed down, then cut off).
    var wrongPasswords: Int { get set }
    func addIdle(_ events: IdleEvents)
}

/// One invocation: the arguments, what the handler may see of the connection that sent it,
/// and the server's services.
@CoreActor
public struct CommandCall {
    public let arguments: [String]
    public let session: any CommandSession
    public let context: ServerContext

    public subscript(index: Int) -> String { arguments[index] }
}

/// One row of the command table: MPD's `{name, permission, min, max, handler}`. A class: the
/// command looked up for each request is then one reference, not four fields to retain.
public final class Command: Sendable {
    /// Writes its answer into the response (the client's pending output, handed over for the call).
    public typealias Handler = @CoreActor @Sendable (CommandCall, inout ResponseWriter) throws -> CommandResult
    public typealias Availability = @CoreActor @Sendable (ServerContext) -> Bool

    public let name: String
    public let permission: Permission
    /// nil: the handler checks its arguments itself (MPD's -1).
    public let minimumArguments: Int?
    /// nil: unlimited.
    public let maximumArguments: Int?
    public let handler: Handler
    /// Commands that depend on configuration (stored playlists need a playlist directory) are
    /// hidden from `commands` when unavailable, as in MPD.
    public let isAvailable: Availability?

    public init(
        _ name: String, _ permission: Permission, arguments: ClosedRange<Int>?, unlimited: Bool = false,
        available: Availability? = nil, handler: @escaping Handler
    ) {
        self.name = name
        self.permission = permission
        self.minimumArguments = arguments?.lowerBound
        self.maximumArguments = unlimited ? nil : arguments?.upperBound
        self.isAvailable = available
        self.handler = handler
    }

    func permits(_ granted: Permission) -> Bool { granted.isSuperset(of: permission) }

    /// MPD's arity messages: `wrong number` when the count is fixed, else `too few`/`too many`.
    func checkArity(_ count: Int) throws(ProtocolError) {
        guard let minimum = minimumArguments else { return }
        if let maximum = maximumArguments, minimum == maximum, count != maximum {
            throw .argument("wrong number of arguments for \"\(name)\"")
        }
        if count < minimum { throw .argument("too few arguments for \"\(name)\"") }
        if let maximum = maximumArguments, count > maximum {
            throw .argument("too many arguments for \"\(name)\"")
        }
    }
}

/// The sorted table all lookups, `commands` and `notcommands` come from.
public struct CommandTable: Sendable {
    public let commands: [Command]
    private let index: CommandIndex

    public init(_ commands: [Command]) {
        let sorted = commands.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        precondition(Set(sorted.map(\.name)).count == sorted.count, "two commands of one name")
        self.commands = sorted
        self.index = CommandIndex(sorted.map(\.name))
    }

    public func lookup(_ name: String) -> Command? {
        var name = name
        return name.withUTF8 { lookup(word: $0) }
    }

    /// The command named by a request's command word, looked up without making a string.
    func lookup(word: UnsafeBufferPointer<UInt8>) -> Command? { index.position(of: word).map { commands[$0] } }

    /// Every command of this build, grouped by area like MPD's handler files.
    public static let standard = CommandTable(
        ConnectionCommands.all + ReflectionCommands.all + StatusCommands.all + MessageCommands.all
            + DatabaseCommands.all + ArtworkCommands.all + FingerprintCommands.all + QueueCommands.all + QueueInfoCommands.all
            + PlayerCommands.all + OptionCommands.all + SleepCommands.all + PodcastCommands.all + OutputCommands.all + SoundCommands.all + StoredPlaylistCommands.all
            + SearchAddCommands.all + StickerCommands.all + PartitionCommands.all + MountCommands.all + AccountCommands.all + APIUserCommands.all + OfflineCommands.all + AnalysisCommands.all)
}
