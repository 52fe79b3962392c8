import Foundation
import NimbusInput
import Synchronization

/// Reading providers' JSON without ceremony.
extension Dictionary where Key == String, Value == Any {
    func string(_ key: String) -> String? { self[key] as? String }
    func int64(_ key: String) -> Int64? {
        if let number = self[key] as? NSNumber { return number.int64Value }
        return (self[key] as? String).flatMap { Int64($0) }
    }
    func object(_ key: String) -> [String: Any]? { self[key] as? [String: Any] }
    func objects(_ key: String) -> [[String: Any]] { self[key] as? [[String: Any]] ?? [] }
}

extension StorageError {
    static func api(_ account: String, _ response: HTTPResponse, _ what: String) -> StorageError {
        .remote(account, HTTPHelpers.error(for: response, "\(what)"))
    }
}

/// Remembers where a file's bytes were last found (a signed URL after the redirect), so the
/// next block goes there directly until the link fails; then the provider resolves anew.
final class LinkCache: Sendable {
    private let links = Mutex<[String: (url: String, until: Date)]>([:])
    let lifetime: TimeInterval

    init(lifetime: TimeInterval) { self.lifetime = lifetime }

    func link(_ id: String, fresh: Bool, resolve: () throws(RemoteError) -> String) throws(RemoteError) -> String {
        if !fresh, let known = links.withLock({ $0[id] }), known.until > Date() { return known.url }
        let url = try resolve()
        links.withLock { $0[id] = (url, Date().addingTimeInterval(lifetime)) }
        return url
    }
}
