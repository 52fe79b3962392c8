import Foundation
import NimbusInput

/// Nextcloud's Login Flow v2 (https://docs.nextcloud.com/server/latest/developer_manual/client_apis/LoginFlow/):
/// `POST SERVER/index.php/login/v2` answers a `login` address the person opens in any browser
/// and a `poll` endpoint with a token; the box posts `token=…` there until the person has
/// logged in (404 meanwhile) and receives `server`, `loginName` and an `appPassword` made for
/// this box alone, which the person can revoke in the server's security settings. No app is
/// registered anywhere; ownCloud 10 and Nextcloud since 16 answer it.
public struct LoginFlowSignIn: Sendable {
    public struct Endpoints: Sendable, Equatable {
        /// The server's address, as the person typed it (`https://cloud.example.com`).
        public var server: String
        /// Seconds between polls.
        public var interval: Double
        /// The poll token's life on the server (20 minutes in Nextcloud).
        public var expiresIn: Double
    }

    /// What the person opens, and what the box polls.
    public struct Authorization: Sendable {
        public var loginURL: String
        var pollURL: String
        var token: String
    }

    /// What the flow gives: the account's WebDAV login, saved as the account's login file.
    public struct Login: Sendable, Codable, Equatable {
        public var server: String
        public var user: String
        public var appPassword: String

        enum CodingKeys: String, CodingKey {
            case server
            case user
            case appPassword = "app_password"
        }
    }

    public let endpoints: Endpoints
    let pool = HTTPSessionPool(capacity: 1)

    public init(endpoints: Endpoints) { self.endpoints = endpoints }

    public func start() throws(SignInError) -> Authorization {
        let server = endpoints.server.hasSuffix("/") ? String(endpoints.server.dropLast()) : endpoints.server
        let (status, json) = try SignInHTTP.post(server + "/index.php/login/v2", [], pool: pool)
        guard status == 200, let json, let login = json["login"] as? String, let poll = json["poll"] as? [String: Any],
            let token = poll["token"] as? String, let pollURL = poll["endpoint"] as? String, Self.isWeb(login), Self.isWeb(pollURL),
            SignInText.isPrintable(token)
        else { throw SignInHTTP.failure(status: status, json: json, step: "starting a login (is \(server) a Nextcloud server?)") }
        return Authorization(loginURL: login, pollURL: pollURL, token: token)
    }

    /// Polls until the person logged in. `wait` sleeps that many seconds and returns false when
    /// the flow was cancelled; `now` is the clock in seconds.
    public func login(
        for authorization: Authorization, wait: (Double) -> Bool, now: () -> Double = { Date().timeIntervalSince1970 }
    ) throws(SignInError) -> Login {
        let deadline = now() + endpoints.expiresIn
        while true {
            guard wait(endpoints.interval) else { throw .cancelled }
            guard now() < deadline else { throw .expired }
            let (status, json) = try SignInHTTP.post(authorization.pollURL, [("token", authorization.token)], pool: pool)
            if status == 404 { continue }
            guard status == 200, let json, let server = json["server"] as? String, let user = json["loginName"] as? String,
                let password = json["appPassword"] as? String, Self.isWeb(server), !user.isEmpty, !password.isEmpty,
                SignInText.isPrintable(user), SignInText.isPrintable(password)
            else { throw SignInHTTP.failure(status: status, json: json, step: "the login") }
            return Login(server: server, user: user, appPassword: password)
        }
    }

    static func isWeb(_ url: String) -> Bool {
        let lowered = url.lowercased()
        return (lowered.hasPrefix("https://") || lowered.hasPrefix("http://")) && url.utf8.count <= 2048 && SignInText.isPrintable(url)
    }
}

/// Text from a provider that is shown to a person or saved: bounded, without control characters.
enum SignInText {
    static func isPrintable(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 4096 && !text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }
}
