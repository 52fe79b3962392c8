import Foundation
import NimbusInput
import NimbusSupport

/// `type "nextcloud"`: a Nextcloud (or ownCloud) server by its address (`url`), signed in
/// with Login Flow v2, so nobody registers an app or types a password into the box: the
/// person logs in on the server's page and the box receives an app password of its own. The
/// files are its WebDAV tree, `SERVER/remote.php/dav/files/USER/`.
struct NextcloudProviderPlugin: CloudProviderPlugin {
    let type = "nextcloud"
    let requiredSettings = ["url"]

    func signIn(_ settings: [String: String]) -> SignInMethod {
        .browser(LoginFlowSignIn.Endpoints(server: settings["url"] ?? "", interval: 2, expiresIn: 20 * 60))
    }

    func configuredUser(_ settings: [String: String]) -> String? { Self.login(settings["login_file"])?.user }

    func secretFile(_ settings: [String: String]) -> (setting: String, suffix: String)? { ("login_file", "login") }

    func make(_ context: ProviderContext) throws(StorageError) -> any CloudProvider {
        let account = context.account, file = account.settings["login_file"]
        guard let login = Self.login(file) else {
            throw StorageError(.io, "\(account.name): sign-in needed — run: nimbus authorize \(account.name)")
        }
        return WebDAVProvider(
            account: account.name, baseURL: Self.files(login, root: account.root), credentials: Self.credentials(login),
            pool: context.pool
        ) { Self.login(file).map(Self.credentials) }
    }

    /// The login a sign-in saved (nil: none, or unreadable).
    static func login(_ file: String?) -> LoginFlowSignIn.Login? {
        guard let file, let bytes = (try? AtomicFile.read(file)) ?? nil else { return nil }
        return try? JSONDecoder().decode(LoginFlowSignIn.Login.self, from: Data(bytes))
    }

    static func credentials(_ login: LoginFlowSignIn.Login) -> HTTPRequest.Authentication {
        .password(user: login.user, password: login.appPassword)
    }

    /// The user's files: `SERVER/remote.php/dav/files/USER/ROOT/`.
    static func files(_ login: LoginFlowSignIn.Login, root: String) -> String {
        let server = login.server.hasSuffix("/") ? String(login.server.dropLast()) : login.server
        return WebDAVProviderPlugin.base(server + "/remote.php/dav/files/" + HTTPHelpers.encode(login.user, keepSlash: false), root: root)
    }
}

/// `type "yandex-webdav"`: Yandex.Disk through its WebDAV endpoint with an app password
/// (id.yandex.ru → Security → App passwords → Files), which needs no registered app: the
/// person types the Yandex login as `user` and the app password at sign-in.
struct YandexWebDAVProviderPlugin: CloudProviderPlugin {
    let type = "yandex-webdav"
    static let server = "https://webdav.yandex.ru"
    let needs = ["user"]

    func signIn(_ settings: [String: String]) -> SignInMethod { .password }
    func configuredUser(_ settings: [String: String]) -> String? { settings["user"] }
    func secretFile(_ settings: [String: String]) -> (setting: String, suffix: String)? { ("password_file", "password") }

    func verify(password: String, _ settings: [String: String]) throws(StorageError) {
        try WebDAVProviderPlugin.verify(
            url: settings["url"] ?? Self.server, root: settings["root"] ?? "/", user: settings["user"] ?? "", password: password)
    }

    func make(_ context: ProviderContext) throws(StorageError) -> any CloudProvider {
        var account = context.account
        if account.settings["url"] == nil { account.settings["url"] = Self.server }
        guard account.settings["user"] != nil else { throw StorageError(.io, "\(account.name): no user (the Yandex login)") }
        return try WebDAVProviderPlugin().make(ProviderContext(account: account, pool: context.pool, health: context.health, tokens: nil))
    }
}
