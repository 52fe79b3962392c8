/// Isolation of everything that MPD keeps on its main thread: sessions, queue, options,
/// database handle, idle bus. Its executor is the core `EventLoop`, so isolated code never
/// hops threads, and other threads reach it with `Task { @CoreActor in … }` or `await`.
@globalActor
public actor CoreActor {
    public static let shared = CoreActor()
    public static let loop = EventLoop(name: "nimbus-core")

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        Self.loop.asUnownedSerialExecutor()
    }

    /// Runs `operation` synchronously, trapping unless the caller already is on the loop
    /// thread (socket callbacks dispatched by the loop itself).
    public static func assumeIsolated<T: Sendable>(_ operation: @CoreActor () throws -> T) rethrows -> T {
        shared.preconditionIsolated()
        return try unchecked(operation)
    }

    /// `assumeIsolated` for the loop's own turns (readiness, timers, end of iteration), which
    /// run on the loop thread by construction: the runtime's isolation check (task-local
    /// executor lookups through `__tls_get_addr`) was a quarter of the daemon's CPU per `ping`
    /// (perf). Debug builds still check.
    static func assumeIsolatedOnLoop<T: Sendable>(_ operation: @CoreActor () throws -> T) rethrows -> T {
        assert({ shared.preconditionIsolated(); return true }())
        return try unchecked(operation)
    }

    /// Calls an isolated closure as a plain one; the callers above say why that is safe.
    private static func unchecked<T: Sendable>(_ operation: @CoreActor () throws -> T) rethrows -> T {
        typealias Unisolated = () throws -> T
        return try withoutActuallyEscaping(operation) { isolated in
            try unsafeBitCast(isolated, to: Unisolated.self)()
        }
    }
}
