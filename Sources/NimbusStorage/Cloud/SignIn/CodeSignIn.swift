import Foundation
import NimbusInput

/// OAuth 2.0 authorization code with PKCE for installed apps (RFC 7636, RFC 8252). The person
/// opens the authorization address with `client_id`, `response_type=code`, the S256
/// challenge and `state`; the provider either shows a code to paste back (no redirect URI,
/// as Dropbox does) or sends the browser to a loopback address `http://127.0.0.1:PORT/` with
/// `code` and `state` (Google). The code goes to the token endpoint with the verifier (and
/// the client secret when the app has one). Which provider does which, and its endpoints,
/// is the provider plugin's declaration (Providers/).
public struct CodeSignIn: Sendable {
    public struct Endpoints: Sendable, Equatable {
        public var authorizeURL: String
        public var tokenURL: String
        public var scope: String?
        public var extra: [String: String]
        /// Google sends the browser back to the box; Dropbox shows the code instead.
        public var usesLoopback: Bool

        /// The endpoints with the block's overrides (`authorize_url`, `token_url`).
        func overridden(by settings: [String: String]) -> Endpoints {
            var endpoints = self
            if let url = settings["authorize_url"] { endpoints.authorizeURL = url }
            if let url = settings["token_url"] { endpoints.tokenURL = url }
            return endpoints
        }
    }

    public let endpoints: Endpoints
    public let clientID: String
    public let clientSecret: String?
    public let pkce = PKCE()
    public let state = PKCE.state()
    let pool = HTTPSessionPool(capacity: 1)

    public init(endpoints: Endpoints, clientID: String, clientSecret: String?) {
        self.endpoints = endpoints
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    /// The address the user opens in a browser.
    public func authorizationURL(redirectURI: String?) -> String {
        var fields = [
            ("client_id", clientID), ("response_type", "code"), ("code_challenge", pkce.challenge),
            ("code_challenge_method", "S256"), ("state", state),
        ]
        if let redirectURI { fields.append(("redirect_uri", redirectURI)) }
        if let scope = endpoints.scope { fields.append(("scope", scope)) }
        fields += endpoints.extra.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        let query = String(decoding: HTTPHelpers.form(fields), as: UTF8.self)
        return endpoints.authorizeURL + (endpoints.authorizeURL.contains("?") ? "&" : "?") + query
    }

    /// The code from what the user pasted: the code itself, or the whole address the browser
    /// was sent to (whose `state` must be ours: anything else may be someone else's sign-in).
    public func code(fromPasted text: String) throws(SignInError) -> String {
        let pasted = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard pasted.contains("code=") || pasted.contains("error=") else {
            guard !pasted.isEmpty else { throw .cancelled }
            return pasted
        }
        let query = URLComponents(string: pasted)?.queryItems ?? URLComponents(string: "?" + pasted)?.queryItems ?? []
        func value(_ name: String) -> String? { query.first { $0.name == name }?.value }
        if let error = value("error") { throw error == "access_denied" ? .denied : .failed("The provider refused the sign-in: \(error).") }
        guard value("state") == state else {
            throw .failed("That address belongs to another sign-in (its state does not match); start again with nimbus authorize.")
        }
        guard let code = value("code"), !code.isEmpty else { throw .failed("The address holds no code; paste the whole address.") }
        return code
    }

    public func exchange(code: String, redirectURI: String?) throws(SignInError) -> TokenSet {
        var fields = [("grant_type", "authorization_code"), ("code", code), ("client_id", clientID), ("code_verifier", pkce.verifier)]
        if let clientSecret { fields.append(("client_secret", clientSecret)) }
        if let redirectURI { fields.append(("redirect_uri", redirectURI)) }
        let (status, json) = try SignInHTTP.post(endpoints.tokenURL, fields, pool: pool)
        if status == 200, let json, let tokens = TokenSet(json, clientID: clientID, clientSecret: clientSecret, now: Date().timeIntervalSince1970) {
            return tokens
        }
        throw SignInHTTP.failure(status: status, json: json, step: "the code")
    }
}
