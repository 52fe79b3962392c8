import Foundation
import NimbusInput
import NimbusSupport

/// How a sign-in ended when it did not: each says in one sentence what happened and what to
/// do. None carries a token, a code or a password.
public enum SignInError: Error, Equatable, CustomStringConvertible {
    case cancelled
    case denied
    case expired
    case invalidClient(String)
    /// The server refused the password (it is not saved).
    case refused(String)
    case failed(String)

    public var description: String {
        switch self {
        case .cancelled: return "Sign-in cancelled; nothing was changed."
        case .denied: return "Access was declined on the provider's page; run nimbus authorize again to retry."
        case .expired: return "The code expired before it was entered; run nimbus authorize again for a new one."
        case .invalidClient(let detail):
            return "The provider does not know this app (\(detail)); check client_id (and client_secret) in the cloud block."
        case .refused(let detail), .failed(let detail): return detail
        }
    }
}

/// The tokens a sign-in produced, in the token file's format (which the daemon reads).
public struct TokenSet: Sendable, Equatable {
    public var access: String
    public var refresh: String?
    public var expiresAt: Double?
    public var clientID: String?
    public var clientSecret: String?

    init?(_ json: [String: Any], clientID: String?, clientSecret: String?, now: Double) {
        guard let access = json["access_token"] as? String, !access.isEmpty else { return nil }
        self.access = access
        refresh = json["refresh_token"] as? String
        expiresAt = SignInHTTP.number(json["expires_in"]).map { now + $0 }
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    public var json: [UInt8] {
        var object: [String: Any] = ["access_token": access]
        if let refresh { object["refresh_token"] = refresh }
        if let expiresAt { object["expires_at"] = expiresAt }
        if let clientID { object["client_id"] = clientID }
        if let clientSecret { object["client_secret"] = clientSecret }
        return Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }
}

/// Secrets written for the daemon: the folder is created, the file is replaced atomically
/// (a crash leaves the old file or the new one) and only its owner may read it.
public enum SecretFile {
    public static func write(_ bytes: [UInt8], to path: String) throws(SignInError) {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw .failed("Cannot create \(folder): \(error.localizedDescription)")
            }
        }
        do throws(SystemError) {
            try AtomicFile.write(bytes, to: path, mode: 0o600)
        } catch {
            throw .failed("Cannot write \(path): \(error.description)")
        }
    }
}

/// Form posts to the providers' OAuth endpoints and their JSON answers.
enum SignInHTTP {
    static func post(_ url: String, _ fields: [(String, String)], pool: HTTPSessionPool) throws(SignInError) -> (Int, [String: Any]?) {
        let request = HTTPRequest(
            method: "POST", url: url, headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
            body: HTTPHelpers.form(fields))
        return try send(request, pool: pool)
    }

    static func send(_ request: HTTPRequest, pool: HTTPSessionPool) throws(SignInError) -> (Int, [String: Any]?) {
        do {
            let (response, body) = try pool.withSession { session throws(HTTPError) in try session.data(request, limit: 1 << 20) }
            return (response.status, (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any])
        } catch {
            throw .failed("Cannot reach \(host(request.url)): \(error.message). Check the network and try again.")
        }
    }

    /// A refusal in the provider's words, with the step it happened at.
    static func failure(status: Int, json: [String: Any]?, step: String) -> SignInError {
        let code = json?["error"] as? String
        let detail = (json?["error_description"] as? String) ?? code ?? "HTTP \(status)"
        if code == "invalid_client" || code == "unauthorized_client" { return .invalidClient(detail) }
        return .failed("The provider refused \(step): \(detail).")
    }

    static func number(_ value: Any?) -> Double? {
        if let value = value as? Double { return value }
        if let value = value as? Int { return Double(value) }
        if let value = value as? String { return Double(value) }
        return nil
    }

    static func host(_ url: String) -> String {
        URLComponents(string: url)?.host ?? url
    }
}
