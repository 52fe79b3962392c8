import Foundation
import NimbusInput

/// OAuth 2.0 device authorization (RFC 8628): the box asks for a device code, the person types
/// the short user code on the provider's page on any other device, and the box polls the
/// token endpoint until the person has answered.
///
/// The device code request (`client_id`, `scope`) answers `device_code`, `user_code`,
/// `verification_url` (Yandex) or `verification_uri` (Microsoft), `interval` and
/// `expires_in`; the poll sends the grant type and the code in the field the provider names
/// (`code` at Yandex, with the client secret; `device_code` at Microsoft) and answers
/// `authorization_pending`, `slow_down` (five more seconds, RFC 8628 §3.5),
/// `authorization_declined`/`access_denied` or `expired_token`. The endpoints and field names
/// are the provider plugin's declaration (Providers/).
public struct DeviceCodeSignIn: Sendable {
    public struct Endpoints: Sendable, Equatable {
        public var deviceCodeURL: String
        public var tokenURL: String
        public var scope: String?
        public var grantType: String
        /// The name of the field the device code goes in when polling.
        public var codeField: String
        /// Whether the token request carries the client secret (Yandex's apps have one).
        public var sendsSecret: Bool

        /// The endpoints with the block's overrides (`device_code_url`, `token_url`), so
        /// tests point them at the emulators.
        func overridden(by settings: [String: String]) -> Endpoints {
            var endpoints = self
            if let url = settings["device_code_url"] { endpoints.deviceCodeURL = url }
            if let url = settings["token_url"] { endpoints.tokenURL = url }
            return endpoints
        }
    }

    /// What the user is shown: where to go and what to type.
    public struct Authorization: Sendable {
        public var deviceCode: String
        public var userCode: String
        public var verificationURL: String
        public var interval: Double
        public var expiresIn: Double
    }

    public let endpoints: Endpoints
    public let clientID: String
    public let clientSecret: String?
    let pool: HTTPSessionPool

    public init(endpoints: Endpoints, clientID: String, clientSecret: String?) {
        self.endpoints = endpoints
        self.clientID = clientID
        self.clientSecret = clientSecret
        pool = HTTPSessionPool(capacity: 1)
    }

    public func start() throws(SignInError) -> Authorization {
        var fields = [("client_id", clientID)]
        if let scope = endpoints.scope { fields.append(("scope", scope)) }
        let (status, json) = try SignInHTTP.post(endpoints.deviceCodeURL, fields, pool: pool)
        guard status == 200, let json, let deviceCode = json["device_code"] as? String, let userCode = json["user_code"] as? String,
            let url = (json["verification_url"] as? String) ?? (json["verification_uri"] as? String)
        else { throw SignInHTTP.failure(status: status, json: json, step: "asking for a device code") }
        return Authorization(
            deviceCode: deviceCode, userCode: userCode, verificationURL: url,
            interval: SignInHTTP.number(json["interval"]) ?? 5, expiresIn: SignInHTTP.number(json["expires_in"]) ?? 600)
    }

    /// Polls until the user answered. `wait` sleeps that many seconds and returns false when
    /// the user gave up (Ctrl-C); `now` is the clock in seconds.
    public func token(
        for authorization: Authorization, wait: (Double) -> Bool, now: () -> Double = { Date().timeIntervalSince1970 }
    ) throws(SignInError) -> TokenSet {
        let deadline = now() + authorization.expiresIn
        var interval = authorization.interval
        while true {
            guard wait(interval) else { throw .cancelled }
            guard now() < deadline else { throw .expired }
            var fields = [("grant_type", endpoints.grantType), (endpoints.codeField, authorization.deviceCode), ("client_id", clientID)]
            if endpoints.sendsSecret, let clientSecret { fields.append(("client_secret", clientSecret)) }
            let (status, json) = try SignInHTTP.post(endpoints.tokenURL, fields, pool: pool)
            if status == 200, let json, let tokens = TokenSet(json, clientID: clientID, clientSecret: clientSecret, now: now()) {
                return tokens
            }
            switch json?["error"] as? String {
            case "authorization_pending": continue
            case "slow_down": interval += 5
            case "expired_token", "code_expired": throw .expired
            case "access_denied", "authorization_declined": throw .denied
            default: throw SignInHTTP.failure(status: status, json: json, step: "waiting for the sign-in")
            }
        }
    }
}
