import Foundation
import NimbusCore
import NimbusInput
import NimbusLibrary
import NimbusModel
import NimbusSupport
import NimbusWeb
import Synchronization

/// The Subsonic / OpenSubsonic API under `/rest/`: signs each request in, routes it through
/// the endpoint table (`SubsonicEndpointTable`) to a worker thread — never the cooperative
/// pool: a search walks the library and a stream waits on the network — or, for the lookups
/// of one item marked `inline` whose index and stickers are at hand, answers on the web
/// thread itself; then encodes the answer as the client asked. No query string is ever
/// logged: it carries the credentials.
public final class SubsonicService: Sendable {
    public static let apiVersion = "1.16.1"
    let serverVersion: String
    public let signIn: SubsonicSignIn
    let backend: SubsonicBackend
    let logger: Logger
    /// Requests that build an answer, a few at a time.
    private let workers: BlockingWork
    /// Streams and downloads: each holds a thread while its client reads, so they have their own bound.
    let streamers: BlockingWork
    /// Transcodes: each is a CPU-bound encode (throttled by its phone's reading), so fewer at
    /// once than streams, at a lower priority than the box's own playback.
    let transcoders: BlockingWork
    /// The daemon's current database, handed over as each one is installed (so a request
    /// needs no hop to the core loop to find it).
    private let current: Mutex<Database>
    /// Whether phones use the API: a user exists, or a request came (then each new
    /// database's index is built as soon as it is installed).
    private let used = Atomic<Bool>(false)
    /// Bumped whenever stickers may have changed (here or on the MPD port): the annotations
    /// read for one request serve the next ones until then.
    private let stickerGeneration = Atomic<Int>(0)
    private let annotationCache = Mutex<(generation: Int, snapshot: AnnotationSnapshot)?>(nil)
    /// The library index of the latest database seen, built once per snapshot, held together
    /// with the database it indexes (so an identity compared is never a reused address).
    private let index = Mutex<(database: Database, library: SubsonicLibrary)?>(nil)
    private let building = NSLock()
    /// Phones streaming now, for `getNowPlaying`.
    let streaming = Mutex<[Int: (user: String, song: String, client: String, since: Date)]>([:])
    let streamCounter = Atomic<Int>(0)
    /// What phones said they are playing (`scrobble` with `submission=false`).
    let nowPlayingNotes = Mutex<[(user: String, song: String, client: String, since: Date)]>([])

    public let accounts: SubsonicAccounts
    /// Each user's phone queue (`savePlayQueue`).
    let playQueues: SubsonicPlayQueues

    public init(
        accounts: SubsonicAccounts, playQueues: SubsonicPlayQueues, backend: SubsonicBackend, database: Database, serverVersion: String,
        executors: Executors, logger: Logger
    ) {
        self.accounts = accounts
        self.playQueues = playQueues
        current = Mutex(database)
        signIn = accounts.signIn
        self.backend = backend
        self.serverVersion = serverVersion
        self.logger = logger
        workers = executors.subsonic
        streamers = executors.subsonicStreams
        transcoders = executors.transcodes
        if !accounts.signIn.users.isEmpty {
            used.store(true, ordering: .relaxed)
            workers.submit { [self] in _ = library(database) }
        }
    }

    /// The handler the web server calls for `/rest/`.
    public var handler: APIHandler {
        { [self] request, answer in
            // Repeated failed sign-ins from this address wait before they are looked at —
            // on a timer, not on a worker, so guessing cannot hold up other phones.
            used.store(true, ordering: .relaxed)
            let delay = signIn.delay(for: request.peer)
            // One snapshot of the library for the whole request, read once.
            let database = self.database
            guard delay > 0 else {
                // A lookup of one item, with the index and the stickers already at hand, costs
                // less than the two thread switches a worker would: it is answered here.
                if isInline(request, database: database) { return answer(self.answer(request, database: database)) }
                return workers.submit { answer(self.answer(request, database: database)) }
            }
            Task {
                try? await Task.sleep(for: .milliseconds(Int(delay * 1000)))
                workers.submit { answer(self.answer(request, database: database)) }
            }
        }
    }

    var database: Database { current.withLock { $0 } }

    /// Whether the request is for an inline endpoint and nothing it needs must be built or
    /// read first: the index of `database` built, the stickers read.
    private func isInline(_ request: APIRequest, database: Database) -> Bool {
        guard case .endpoint(let endpoint) = Self.endpoints.lookup(request.path), endpoint.inline else { return false }
        guard index.withLock({ $0?.database === database }) else { return false }
        let generation = stickerGeneration.load(ordering: .sequentiallyConsistent)
        return annotationCache.withLock { $0?.generation == generation }
    }

    /// A new database is in place (the daemon calls this as it installs one). Once phones use
    /// the API, its index is built at once, off the web thread, so that no phone's request
    /// after an update waits for it; a box no phone talks to never builds one.
    public func databaseChanged(_ database: Database) {
        current.withLock { $0 = database }
        guard used.load(ordering: .relaxed) else { return }
        workers.submit { _ = self.library(database) }
    }

    /// Stickers may have changed (an MPD client's `sticker set`, or this API's own change).
    public func stickersChanged() { stickerGeneration.add(1, ordering: .sequentiallyConsistent) }

    /// The annotations as of now: those read last, unless stickers changed since.
    func annotations(read: () -> AnnotationSnapshot) -> AnnotationSnapshot {
        let generation = stickerGeneration.load(ordering: .sequentiallyConsistent)
        if let cached = annotationCache.withLock({ $0 }), cached.generation == generation { return cached.snapshot }
        let snapshot = read()
        annotationCache.withLock { $0 = (generation, snapshot) }
        return snapshot
    }

    /// The library index for `database`, built at most once per snapshot.
    func library(_ database: Database) -> SubsonicLibrary {
        if let known = index.withLock({ $0 }), known.database === database { return known.library }
        building.lock()
        defer { building.unlock() }
        if let known = index.withLock({ $0 }), known.database === database { return known.library }
        let built = SubsonicLibrary(database, location: backend.location, replayGain: backend.replayGain)
        index.withLock { $0 = (database, built) }
        return built
    }

    /// Blocking: signs in, runs the endpoint, encodes.
    func answer(_ request: APIRequest, database: Database) -> APIAnswer {
        let arguments = SubsonicArguments(request.arguments)
        let format = SubsonicFormat((try? arguments.optional("f")) ?? nil, callback: (try? arguments.optional("callback")) ?? nil)
        let name = SubsonicEndpointTable.name(request.path)
        let endpoint: SubsonicEndpoint
        switch Self.endpoints.lookup(request.path) {
        case .endpoint(let found): endpoint = found
        case .notImplemented:
            return encoded(failure: SubsonicError(0, "Not implemented on this server: \(name)"), format: format, status: 501)
        case .gone:
            return encoded(failure: SubsonicError(0, "This server will not implement \(name)"), format: format, status: 410)
        case .unknown:
            return encoded(failure: SubsonicError(0, "Unknown endpoint: \(name.prefix(64))"), format: format, status: 404)
        }
        do throws(SubsonicError) {
            let user: SubsonicUser?
            if endpoint.needsSignIn {
                do {
                    user = try signIn.check(arguments, peer: request.peer)
                } catch {
                    if error.code == 40 || error.code == 44 { logger.warning("[\(request.peer)] Subsonic sign-in refused (\(error.code))") }
                    throw error
                }
                guard user!.permissions.isSuperset(of: endpoint.permission) else { throw .notAuthorized }
            } else {
                user = nil
            }
            let call = SubsonicCall(
                service: self, arguments: arguments, user: user, request: request, database: database, format: format)
            switch try endpoint.run(call) {
            case .node(let content):
                var root = envelope(ok: true)
                if let content { root.add(content) }
                return encodedAnswer(root, format: format)
            case .nodes(let holder):
                var root = envelope(ok: true)
                root.children = holder.children
                root.lists = holder.lists
                return encodedAnswer(root, format: format)
            case .http(var answer):
                answer.headOnly = request.method == "HEAD"
                return answer
            }
        } catch {
            return encoded(failure: error, format: format)
        }
    }

    func envelope(ok: Bool) -> SubsonicNode {
        SubsonicNode(
            "subsonic-response",
            [
                ("status", .string(ok ? "ok" : "failed")), ("version", .string(Self.apiVersion)), ("type", .string("nimbus")),
                ("serverVersion", .string(serverVersion)), ("openSubsonic", .bool(true)),
            ])
    }

    func encoded(failure: SubsonicError, format: SubsonicFormat, status: Int = 200) -> APIAnswer {
        var root = envelope(ok: false)
        var error = SubsonicNode("error")
        error.set("code", failure.code)
        error.set("message", failure.message)
        root.add(error)
        var answer = encodedAnswer(root, format: format)
        answer.status = status
        return answer
    }

    private func encodedAnswer(_ root: SubsonicNode, format: SubsonicFormat) -> APIAnswer {
        APIAnswer(status: 200, type: format.contentType, headers: [("cache-control:", "no-cache")], body: .bytes(format.encode(root)))
    }
}

/// One request being answered: what an endpoint may look at.
struct SubsonicCall {
    let service: SubsonicService
    let arguments: SubsonicArguments
    let user: SubsonicUser?
    let request: APIRequest
    let database: Database
    let format: SubsonicFormat
    let state = CallState()
    var library: SubsonicLibrary { service.library(database) }
    var backend: SubsonicBackend { service.backend }

    /// Runs an async call of the daemon's and waits (on a worker thread, never the pool).
    func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<T?>(nil)
        Task {
            let value = await body()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }
}
