import Foundation
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

    /// Received bytes per account and purpose, and what the disk served instead, for the log:
    /// `dav: playing 1.2 MiB, indexing 300 KiB; from disk 5.0 MiB in 12 requests`. Nil before
    /// anything moved. With `accounts`, only those are listed (the mounted ones: an unmounted
    /// account's old figures would only repeat).
    public var summary: String? { summary(accounts: nil) }

    public func summary(accounts wanted: Set<String>?) -> String? {
        state.withLock { state in
            guard state.requests > 0 || state.servedFromDisk > 0 else { return nil }
            let accounts = state.byAccount.filter { wanted?.contains($0.key) ?? true }.sorted { $0.key < $1.key }.map { account, purposes in
                account + ": " + purposes.sorted { $0.key < $1.key }.map { "\($0.key.name) \(Self.size($0.value))" }.joined(separator: ", ")
            }
            return (accounts + ["from disk \(Self.size(state.servedFromDisk)) in \(state.requests) requests"]).joined(separator: "; ")
        }
    }

    static func size(_ bytes: Int64) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1 << 20 { return "\(bytes >> 10) KiB" }
        return String(format: "%.1f MiB", Double(bytes) / Double(1 << 20))
    }
}
