import Foundation
import NimbusInput

/// OAuth 2.0 device authorization (RFC 8628) as Yandex and Microsoft run it: the box asks for
/// a device code, the user types the short user code on a page of the provider's on any other
/// device, and the box polls the token endpoint until the user has answered.
///
/// Yandex: `POST https://oauth.yandex.ru/device/code` (`client_id`) answers `device_code`,
/// `user_code`, `verification_url`, `interval`, `expires_in` (10 minutes); the token is asked
/// for with `grant_type=device_code`, `code`, `client_id`, `client_secret`
/// (https://yandex.com/dev/id/doc/en/codes/screen-code-oauth).
/// Microsoft: `POST https://login.microsoftonline.com/common/oauth2/v2.0/devicecode`
/// (`client_id`, `scope`) answers the same with `verification_uri`; the token is asked for with
/// `grant_type=urn:ietf:params:oauth:grant-type:device_code`, `device_code`, `client_id`; the
/// poll answers `authorization_pending`, `authorization_declined`, `bad_verification_code` or
/// `expired_token` (https://learn.microsoft.com/entra/identity-platform/v2-oauth2-device-code).
/// `slow_down` adds five seconds to the interval (RFC 8628 §3.5).
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

        /// The provider's documented endpoints, each overridable in the `cloud { }` block
        /// (`device_code_url`, `token_url`) so tests point them at the emulators.
        public static func forType(_ type: String, settings: [String: String]) -> Endpoints? {
            var endpoints: Endpoints
            switch type {
            case "yandex-disk":
                endpoints = Endpoints(
                    deviceCodeURL: "https://oauth.yandex.ru/device/code", tokenURL: "https://oauth.yandex.ru/token", scope: nil,
                    grantType: "device_code", codeField: "code", sendsSecret: true)
            case "onedrive":
                endpoints = Endpoints(
                    deviceCodeURL: "https://login.microsoftonline.com/common/oauth2/v2.0/devicecode",
                    tokenURL: "https://login.microsoftonline.com/common/oauth2/v2.0/token", scope: "Files.Read offline_access",
                    grantType: "urn:ietf:params:oauth:grant-type:device_code", codeField: "device_code", sendsSecret: false)
            default:
                return nil
            }
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
