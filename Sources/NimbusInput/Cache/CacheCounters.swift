import Synchronization

/// Bytes received from the network per account and purpose, and per file, plus bytes served
/// from disk; tests and benchmarks read them, the log reports them.
public final class CacheCounters: Sendable {
    private struct State {
        var byAccount: [String: [FetchPurpose: Int64]] = [:]
        var byFile: [CacheKey: Int64] = [:]
        var servedFromDisk: Int64 = 0
        var requests = 0
    }

    private let state = Mutex(State())

    public init() {}

    func received(_ bytes: Int, key: CacheKey, purpose: FetchPurpose) {
        state.withLock { state in
            state.byAccount[key.account, default: [:]][purpose, default: 0] += Int64(bytes)
            state.byFile[key, default: 0] += Int64(bytes)
        }
    }

    func served(_ bytes: Int) { state.withLock { $0.servedFromDisk += Int64(bytes) } }
    func request() { state.withLock { $0.requests += 1 } }

    public func received(account: String, purpose: FetchPurpose? = nil) -> Int64 {
        state.withLock { state in
            let purposes = state.byAccount[account] ?? [:]
            return purpose.map { purposes[$0] ?? 0 } ?? purposes.values.reduce(0, +)
        }
    }

    public func received(file key: CacheKey) -> Int64 { state.withLock { $0.byFile[key] ?? 0 } }
    public var servedFromDisk: Int64 { state.withLock { $0.servedFromDisk } }
    public var requests: Int { state.withLock { $0.requests } }

    /// One line per account and purpose, for the log.
    public var summary: String {
        state.withLock { state in
            state.byAccount.sorted { $0.key < $1.key }.map { account, purposes in
                account + ": " + purposes.sorted { $0.key < $1.key }.map { "\($0.key.name) \($0.value) B" }.joined(separator: ", ")
            }.joined(separator: "; ")
        }
    }
}
