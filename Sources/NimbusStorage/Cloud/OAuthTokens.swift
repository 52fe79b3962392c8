import Foundation
import NimbusInput
import NimbusSupport
import Synchronization

/// An account's OAuth tokens, read from its `token_file` (JSON with `access_token`,
/// `refresh_token`, `client_id`, `client_secret`, `expires_at`): refreshed shortly before they
/// expire and after a 401, once for all threads at a time, and written back atomically (a
/// rotated refresh token must never be lost). Tokens never reach a log line.
///
/// One per account for the life of the daemon, from before the first sign-in: a token file
/// written later (a sign-in) is taken up, one removed signs the account out. What went wrong
/// (no token, a refresh refused or failing) is kept here and read by `AccountHealth`.
final class OAuthTokens: Sendable {
    private struct State: Sendable {
        /// Empty before a sign-in wrote the file.
        var access: String
        var refresh: String?
        var clientID: String?
        var clientSecret: String?
        var expiresAt: Double?
        /// The token file's modification time when it was read or written.
        var modified: Int64 = 0
        /// The provider refused the refresh token: no request is sent until a new sign-in
        /// replaces the file (it would be refused again, every time).
        var refused = false
        /// Why a sign-in is needed (no token, the file removed, the refresh token refused).
        var signInNeeded: String?
        /// Refreshing has failed since (seconds since 1970), and why.
        var refreshFailure: (since: Int64, reason: String)?
    }

    let account: String
    private let file: String
    private let tokenURL: String
    private let scheme: String
    private let pool: HTTPSessionPool
    private let state: Mutex<State>
    /// Held while refreshing, so concurrent 401s cause one refresh.
    private let refreshing = Mutex<Void>(())
    private let configuredClientID: String?

    init(account: String, file: String, tokenURL: String, scheme: String, clientID: String?, pool: HTTPSessionPool) {
        self.account = account
        self.file = file
        self.tokenURL = tokenURL
        self.scheme = scheme
        self.pool = pool
        configuredClientID = clientID
        state = Mutex(Self.read(file, clientID: clientID) ?? Self.missing("no token saved"))
    }

    private static func missing(_ reason: String) -> State {
        State(access: "", refused: true, signInNeeded: reason)
    }

    /// A sign-in wrote a token the provider has not refused since.
    var hasToken: Bool { state.withLock { !$0.access.isEmpty } }

    /// The provider refused the refresh token of a sign-in that once worked.
    var refusedRefresh: Bool { state.withLock { $0.refused && !$0.access.isEmpty } }

    /// What `AccountHealth` reports of the credentials.
    var trouble: (signInNeeded: String?, refreshFailure: (since: Int64, reason: String)?) {
        state.withLock { ($0.signInNeeded, $0.refreshFailure) }
    }

    /// The token file as `nimbus authorize` (or an earlier refresh) wrote it.
    private static func read(_ file: String, clientID: String?) -> State? {
        guard let bytes = (try? AtomicFile.read(file)) ?? nil,
            let json = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any],
            let access = json["access_token"] as? String
        else { return nil }
        // rclone's tokens say when they expire as RFC 3339 `expiry`.
        let expiry = (json["expiry"] as? String).flatMap(rfc3339)
        return State(
            access: access, refresh: json["refresh_token"] as? String,
            clientID: (json["client_id"] as? String) ?? clientID, clientSecret: json["client_secret"] as? String,
            expiresAt: (json["expires_at"] as? Double) ?? expiry, modified: modification(of: file))
    }

    /// `2026-12-01T15:04:05.123456789+01:00` (fractional seconds dropped) as seconds since 1970.
    static func rfc3339(_ text: String) -> Double? {
        var trimmed = text
        if let dot = trimmed.firstIndex(of: "."),
            let end = trimmed[dot...].firstIndex(where: { $0 == "Z" || $0 == "z" || $0 == "+" || $0 == "-" })
        {
            trimmed.removeSubrange(dot..<end)
        }
        return ISO8601DateFormatter().date(from: trimmed.uppercased())?.timeIntervalSince1970
    }

    private static func modification(of file: String) -> Int64 {
        var info = stat()
        guard stat(file, &info) == 0 else { return 0 }
        return Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }

    /// A token file replaced since it was read (a new `nimbus authorize`) is taken up; one
    /// removed signs the account out.
    func reloadIfChanged() {
        let modified = Self.modification(of: file)
        guard modified != state.withLock({ $0.modified }) else { return }
        guard let fresh = Self.read(file, clientID: configuredClientID) else {
            // Removed: the user signed out. Nothing is sent until a new sign-in writes it.
            if modified == 0, hasToken {
                state.withLock { $0 = Self.missing("the saved token was removed") }
            }
            return
        }
        state.withLock { $0 = fresh }
    }

    /// The Authorization header, refreshing first when the token is about to expire.
    func header() throws(RemoteError) -> (name: String, value: String) {
        reloadIfChanged()
        if state.withLock({ $0.refused }) { throw signInNeeded }
        let (access, expiresAt) = state.withLock { ($0.access, $0.expiresAt) }
        if let expiresAt, expiresAt < Date().timeIntervalSince1970 + 60 {
            try refresh(after: access)
        }
        return ("Authorization", scheme + " " + state.withLock { $0.access })
    }

    /// Refreshes unless another thread already replaced `failed`.
    func refresh(after failed: String? = nil) throws(RemoteError) {
        try refreshing.withLock { _ throws(RemoteError) in
            let current = state.withLock { $0 }
            if let failed, current.access != failed { return }
            guard let refreshToken = current.refresh else {
                throw RemoteError(.unauthorized, "\(account): the access token expired and there is no refresh token")
            }
            var fields = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
            if let id = current.clientID { fields.append(("client_id", id)) }
            if let secret = current.clientSecret { fields.append(("client_secret", secret)) }
            let request = HTTPRequest(
                method: "POST", url: tokenURL, headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: HTTPHelpers.form(fields))
            let response: HTTPResponse
            let body: [UInt8]
            do throws(HTTPError) {
                (response, body) = try pool.withSession { session throws(HTTPError) in try session.data(request, limit: 1 << 20) }
            } catch {
                noteRefreshFailed(error.message)
                throw RemoteError(.transient, "\(account): token refresh: \(error.message)")
            }
            guard response.status == 200, let json = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
                let access = json["access_token"] as? String
            else {
                if response.status == 400 || response.status == 401 {
                    state.withLock {
                        $0.refused = true
                        $0.signInNeeded = "the provider refused the refresh token (HTTP \(response.status))"
                    }
                    throw signInNeeded
                }
                noteRefreshFailed("HTTP \(response.status)")
                throw RemoteError(.transient, "\(account): token refresh failed (HTTP \(response.status))")
            }
            let updated = state.withLock { state -> State in
                state.access = access
                if let rotated = json["refresh_token"] as? String { state.refresh = rotated }
                if let lifetime = json["expires_in"] as? Double { state.expiresAt = Date().timeIntervalSince1970 + lifetime }
                state.refreshFailure = nil
                return state
            }
            save(updated)
        }
    }

    private func noteRefreshFailed(_ reason: String) {
        let now = Int64(Date().timeIntervalSince1970)
        state.withLock { $0.refreshFailure = ($0.refreshFailure?.since ?? now, reason) }
    }

    /// The access token alone (who-am-I requests), refreshed first when about to expire.
    func accessToken() throws(RemoteError) -> String { String(try header().value.dropFirst(scheme.count + 1)) }

    var currentAccess: String { state.withLock { $0.access } }

    private var signInNeeded: RemoteError {
        RemoteError(.unauthorized, "\(account): sign-in needed — run: nimbus authorize \(account)")
    }

    private func save(_ state: State) {
        var json: [String: Any] = ["access_token": state.access]
        if let refresh = state.refresh { json["refresh_token"] = refresh }
        if let id = state.clientID { json["client_id"] = id }
        if let secret = state.clientSecret { json["client_secret"] = secret }
        if let expiresAt = state.expiresAt { json["expires_at"] = expiresAt }
        guard let data = try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]) else { return }
        try? AtomicFile.write(Array(data), to: file, mode: 0o600)
        let modified = Self.modification(of: file)
        self.state.withLock { $0.modified = modified }
    }
}

/// Authorized JSON API calls with the retries every provider needs: one refresh after a 401,
/// a few waits on 429 and 5xx (Retry-After honoured).
struct JSONAPI: Sendable {
    let account: String
    let tokens: OAuthTokens
    let pool: HTTPSessionPool
    let health: AccountHealth

    func call(_ build: @Sendable () -> HTTPRequest) throws(RemoteError) -> (HTTPResponse, Any?) {
        var refreshed = false
        var attempts = 0
        while true {
            var request = build()
            let before = tokens.currentAccess
            request.headers.append(try tokens.header())
            let response: HTTPResponse
            let body: [UInt8]
            do {
                (response, body) = try pool.withSession { session throws(HTTPError) in try session.data(request, limit: 64 << 20) }
            } catch {
                attempts += 1
                if attempts < 3 { continue }
                throw RemoteError(.transient, "\(account): \(error.message)")
            }
            if response.status == 401 && !refreshed {
                refreshed = true
                try tokens.refresh(after: before)
                continue
            }
            if response.status == 429 || response.status >= 500 {
                if response.status == 429 { health.noteRateLimited(seconds: response.retryAfter ?? 60) }
                attempts += 1
                let error = HTTPHelpers.error(for: response, account)
                // The provider says when to come back: a few seconds are waited here (a
                // listing thread); a longer wait is the account's `rate limited until …`.
                let wait = response.retryAfter ?? attempts
                guard attempts < 4, wait <= 5 else { throw error }
                usleep(useconds_t(wait) * 1_000_000)
                continue
            }
            health.noteAnswered()
            return (response, try? JSONSerialization.jsonObject(with: Data(body)))
        }
    }
}
