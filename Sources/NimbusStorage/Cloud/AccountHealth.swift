import Foundation
import NimbusSupport
import Synchronization

/// How one cloud account is doing, as `nimbus accounts` (the `listaccounts` command) shows it.
/// The API layers report what they see (a 429, a listing that could not connect), the
/// account's tokens what they know (no token, a refused or failing refresh), and the report
/// picks the most useful one: what the user must act on first. Who signed in and when the
/// account was last listed survive a restart in a small file.
public final class AccountHealth: Sendable {
    public enum State: String, Sendable {
        case ok
        case signInNeeded = "sign-in needed"
        case refreshFailed = "token refresh failed"
        case unreachable
        case rateLimited = "rate limited"
        case notMounted = "not mounted"
    }

    public struct Report: Sendable, Equatable {
        public var state: State
        /// Unreachable or failing to refresh since (seconds since 1970).
        public var since: Int64?
        /// Rate limited until.
        public var until: Int64?
        public var reason: String?
        public var user: String?
        public var lastUpdate: Int64?
    }

    private struct Record: Sendable {
        var unreachable: (since: Int64, reason: String)?
        var limitedUntil: Int64?
        var notMounted: String?
        var user: String?
        var lastUpdate: Int64?
        var identifying = false
    }

    private struct Saved: Codable {
        var user: String?
        var lastUpdate: Int64?
    }

    private let record: Mutex<Record>
    private let path: String?
    /// The account's OAuth tokens (nil: none, as for WebDAV).
    private let credentials: OAuthTokens?
    /// Asks the provider who is signed in (nil when the settings say, as for WebDAV).
    private let identify: (@Sendable () -> String?)?
    /// Why a sign-in is needed when the account's saved password or login is missing (nil:
    /// it is there, or the account keeps none).
    private let secretMissing: (@Sendable () -> String?)?
    /// The user the account's settings or saved login name (a Nextcloud login names its
    /// user only once signed in), read when nothing was learned otherwise.
    private let settingsUser: (@Sendable () -> String?)?
    /// Where the sign-in's identity is asked (one request); nil for an account with no `identify`.
    private let work: BlockingWork?

    init(
        path: String?, user: String? = nil, credentials: OAuthTokens? = nil, identify: (@Sendable () -> String?)? = nil,
        secretMissing: (@Sendable () -> String?)? = nil, settingsUser: (@Sendable () -> String?)? = nil, work: BlockingWork? = nil
    ) {
        self.work = work
        self.settingsUser = settingsUser
        self.path = path
        self.credentials = credentials
        self.identify = identify
        self.secretMissing = secretMissing
        var initial = Record()
        if let path, let bytes = (try? AtomicFile.read(path)) ?? nil, let saved = try? JSONDecoder().decode(Saved.self, from: Data(bytes)) {
            initial.user = saved.user
            initial.lastUpdate = saved.lastUpdate
        }
        if let user { initial.user = user }
        record = Mutex(initial)
    }

    /// Whether the sign-in was refused since (a refresh token the provider no longer takes).
    public var refreshRefused: Bool { credentials?.refusedRefresh ?? false }

    public var report: Report {
        let now = Int64(Date().timeIntervalSince1970)
        let trouble = credentials?.trouble
        let missing = secretMissing?()
        let named = settingsUser?()
        return record.withLock { record in
            var report = Report(state: .ok, user: record.user ?? named, lastUpdate: record.lastUpdate)
            if let reason = trouble?.signInNeeded ?? missing {
                report.state = .signInNeeded
                report.reason = reason
            } else if let reason = record.notMounted {
                report.state = .notMounted
                report.reason = reason
            } else if let refresh = trouble?.refreshFailure {
                (report.state, report.since, report.reason) = (.refreshFailed, refresh.since, refresh.reason)
            } else if let until = record.limitedUntil, until > now {
                // A listing refused with 429 also failed: the limit is the better explanation.
                (report.state, report.until) = (.rateLimited, until)
            } else if let unreachable = record.unreachable {
                (report.state, report.since, report.reason) = (.unreachable, unreachable.since, unreachable.reason)
            }
            return report
        }
    }

    // MARK: what the API layers see

    public func noteNotMounted(_ reason: String?) { record.withLock { $0.notMounted = reason } }
    func noteRateLimited(seconds: Int) {
        let until = Int64(Date().timeIntervalSince1970) + Int64(max(seconds, 1))
        record.withLock { $0.limitedUntil = max($0.limitedUntil ?? 0, until) }
    }
    /// The provider answered a request: a rate limit it had set is over.
    func noteAnswered() {
        let now = Int64(Date().timeIntervalSince1970)
        record.withLock { record in
            if let until = record.limitedUntil, until > now { record.limitedUntil = nil }
        }
    }
    /// The server answered a read: out of reach no longer.
    func noteReachable() {
        record.withLock { $0.unreachable = nil }
    }
    /// Whether the last request found the server out of reach (asked before a blocking one
    /// that would only wait for its timeout again).
    var isUnreachable: Bool { record.withLock { $0.unreachable != nil } }
    func noteUnreachable(_ reason: String) {
        let now = Int64(Date().timeIntervalSince1970)
        record.withLock { $0.unreachable = ($0.unreachable?.since ?? now, reason) }
    }

    /// A folder was listed: the account answers, and an update has read it.
    func noteListed() {
        let now = Int64(Date().timeIntervalSince1970)
        let needsUser = record.withLock { record -> Bool in
            record.unreachable = nil
            record.notMounted = nil
            record.lastUpdate = now
            return record.user == nil
        }
        save()
        if needsUser { identifyInBackground() }
    }

    /// The report after looking at the credentials again (cheap: one `stat` of the token
    /// file), so a sign-out is seen even while only signed download links, which need no
    /// token, are in use.
    public func checkedReport() -> Report {
        credentials?.reloadIfChanged()
        return report
    }

    /// Who signed in, asked once on a worker thread (never on the core loop): one request.
    public func identifyInBackground() {
        guard let ask = identify, let work else { return }
        let start = record.withLock { record -> Bool in
            guard record.user == nil, !record.identifying else { return false }
            record.identifying = true
            return true
        }
        guard start else { return }
        work.submit { [self] in
            let user = ask()
            record.withLock {
                $0.identifying = false
                if let user { $0.user = user }
            }
            if user != nil { save() }
        }
    }

    private func save() {
        guard let path else { return }
        let saved = record.withLock { Saved(user: $0.user, lastUpdate: $0.lastUpdate) }
        guard let data = try? JSONEncoder().encode(saved) else { return }
        try? AtomicFile.write(Array(data), to: path)
    }
}
