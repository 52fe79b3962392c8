import NimbusInput

/// How a person signs in to an account, as its provider plugin declares it.
public enum SignInMethod: Sendable, Equatable {
    /// Nothing to sign in to (a WebDAV share without a user).
    case none
    /// A user from the account's settings and a password the person types (WebDAV).
    case password
    /// Nextcloud's Login Flow v2: the person logs in on the server's own page, the box
    /// polls and receives an app password; no app to register.
    case browser(LoginFlowSignIn.Endpoints)
    /// OAuth 2.0 device authorization: a short code typed on the provider's page on any device.
    case deviceCode(DeviceCodeSignIn.Endpoints)
    /// OAuth 2.0 authorization code with PKCE: the provider's page in a browser.
    case authorizationCode(CodeSignIn.Endpoints)

    /// Where the account's OAuth tokens are refreshed (nil: the account has none).
    public var tokenURL: String? {
        switch self {
        case .none, .password, .browser: return nil
        case .deviceCode(let endpoints): return endpoints.tokenURL
        case .authorizationCode(let endpoints): return endpoints.tokenURL
        }
    }

    /// The word `accounttypes` and `signin` use: `none`, `password`, `browser`, `device`, `code`.
    public var name: String {
        switch self {
        case .none: return "none"
        case .password: return "password"
        case .browser: return "browser"
        case .deviceCode: return "device"
        case .authorizationCode: return "code"
        }
    }
}

/// Who signed in, asked of the drive API the account will use (so it also proves the token
/// reads the drive): each provider plugin says which request and which fields of the answer.
public struct IdentityQuery: Sendable {
    let request: @Sendable (_ access: String) -> HTTPRequest
    let read: @Sendable (_ answer: [String: Any]) -> (name: String?, email: String?)

    init(
        request: @escaping @Sendable (_ access: String) -> HTTPRequest,
        read: @escaping @Sendable (_ answer: [String: Any]) -> (name: String?, email: String?)
    ) {
        self.request = request
        self.read = read
    }

    /// `Name (email)`, either alone, or nil when the provider does not answer. Blocks: one request.
    public func name(access: String) -> String? {
        guard let (status, json) = try? SignInHTTP.send(request(access), pool: HTTPSessionPool(capacity: 1)), status == 200, let json else {
            return nil
        }
        switch read(json) {
        case (let name?, let email?) where name != email: return "\(name) (\(email))"
        case (let name?, _): return name
        case (nil, let email?): return email
        default: return nil
        }
    }
}
