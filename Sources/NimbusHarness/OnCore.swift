import Dispatch
import NimbusSupport
import Synchronization

/// Runs `body` on the core event loop and waits for it: how synchronous tests on the main
/// thread drive CoreActor code without blocking the loop themselves.
public func onCore<T: Sendable>(_ body: @escaping @CoreActor @Sendable () throws -> T) throws -> T {
    let result = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task { @CoreActor in
        let outcome = Result { try body() }
        result.withLock { $0 = outcome }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
}
