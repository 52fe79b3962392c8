import NimbusInput
import NimbusXML
import Synchronization

/// A WebDAV share (nginx, Apache, Nextcloud, rclone …): PROPFIND with `Depth: 1` per folder,
/// namespace-aware parsing, percent-decoded hrefs, Basic or Digest authentication, ranged GETs
/// validated with the ETag when the server gives one (else modification time and size).
public final class WebDAVProvider: CloudProvider {
    public let account: String
    /// The collection the account's root maps to, ending in `/`.
    public let baseURL: String
    /// Nil for a share without a login, and after a sign-out.
    public var credentials: HTTPRequest.Authentication? { current.withLock { $0 } }
    private let current: Mutex<HTTPRequest.Authentication?>
    /// Reads the saved password again (nil: the share has no login to reload).
    private let reload: (@Sendable () -> HTTPRequest.Authentication?)?
    let pool: HTTPSessionPool
    /// Set once the server's challenge offered Basic: later requests send it at once and
    /// save the challenge round trip.
    private let basicAccepted = Atomic<Bool>(false)

    public init(
        account: String, baseURL: String, credentials: HTTPRequest.Authentication?, pool: HTTPSessionPool,
        reload: (@Sendable () -> HTTPRequest.Authentication?)? = nil
    ) {
        self.account = account
        self.baseURL = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
        current = Mutex(credentials)
        self.reload = reload
        self.pool = pool
    }

    public func reloadCredentials() {
        guard let reload else { return }
        let credentials = reload()
        current.withLock { $0 = credentials }
        basicAccepted.store(false, ordering: .relaxed)
    }

    private static let propfindBody = Array(
        """
        <?xml version="1.0" encoding="utf-8"?>
        <D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/><D:getcontentlength/><D:getlastmodified/><D:getetag/><D:getcontenttype/></D:prop></D:propfind>
        """.utf8)

    var authentication: HTTPRequest.Authentication? {
        if case .password(let user, let password) = credentials, basicAccepted.load(ordering: .relaxed) {
            return .basic(user: user, password: password)
        }
        return credentials
    }

    func url(_ path: String, directory: Bool) -> String {
        baseURL + HTTPHelpers.encode(path) + (directory && !path.isEmpty ? "/" : "")
    }

    public func list(_ path: String) throws(StorageError) -> [RemoteItem] {
        let items = try propfind(url(path, directory: true), depth: 1)
        let selfPath = urlPath(url(path, directory: true))
        return items.filter { $0.href != selfPath && $0.href != selfPath + "/" && $0.href + "/" != selfPath }.compactMap { found in
            let name = String(found.href.split(separator: "/").last ?? "")
            guard !name.isEmpty else { return nil }
            var item = found.item
            item.name = name
            item.path = path.isEmpty ? name : path + "/" + name
            item.id = item.path
            return item
        }
    }

    public func item(_ path: String) throws(StorageError) -> RemoteItem {
        guard var item = try propfind(url(path, directory: false), depth: 0).first?.item else {
            throw StorageError(.notFound, "\(account): \(path) not found")
        }
        item.name = String(path.split(separator: "/").last ?? "")
        item.path = path
        item.id = path
        return item
    }

    public func source(for item: RemoteItem) -> any RemoteSource {
        let location = url(item.path, directory: false)
        return RangedHTTPSource(
            what: account, pool: pool, length: item.size, validator: item.version.hasPrefix("\"") ? item.version : nil,
            modified: item.modified
        ) { [self] _ in HTTPTarget(url: location, authentication: authentication) }
    }

    /// The percent-decoded path part of a URL, for comparing hrefs (which servers give as
    /// absolute URLs or as paths, with upper- or lower-case escapes).
    private func urlPath(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return HTTPHelpers.decode(url) }
        let rest = url[scheme.upperBound...]
        guard let slash = rest.firstIndex(of: "/") else { return "/" }
        return HTTPHelpers.decode(String(rest[slash...]))
    }

    private func propfind(_ url: String, depth: Int) throws(StorageError) -> [(href: String, item: RemoteItem)] {
        let request = HTTPRequest(
            method: "PROPFIND", url: url,
            headers: [("Depth", String(depth)), ("Content-Type", "application/xml; charset=utf-8")],
            body: Self.propfindBody, authentication: authentication)
        let response: HTTPResponse
        let body: [UInt8]
        do {
            (response, body) = try pool.withSession { session throws(HTTPError) in try session.data(request, limit: 16 << 20) }
        } catch {
            throw StorageError(.io, "\(account): \(error.message)")
        }
        if response.offersBasic { basicAccepted.store(true, ordering: .relaxed) }
        guard response.status == 207 else {
            throw StorageError.remote(account, HTTPHelpers.error(for: response, "PROPFIND \(HTTPHelpers.decode(urlPath(url)))"))
        }
        let document: XMLElement
        do {
            document = try XMLDocument.parse(body)
        } catch {
            throw StorageError(.io, "\(account): unreadable PROPFIND answer (\(error.message))")
        }
        let dav = "DAV:"
        return document.all("response", namespace: dav).compactMap { response in
            guard let href = response.value("href", namespace: dav) else { return nil }
            var item = RemoteItem(name: "", path: "", isDirectory: false, id: "")
            for propstat in response.all("propstat", namespace: dav) where propstat.value("status", namespace: dav)?.contains(" 200") ?? false {
                guard let properties = propstat.first("prop", namespace: dav) else { continue }
                if properties.first("resourcetype", namespace: dav)?.first("collection", namespace: dav) != nil { item.isDirectory = true }
                if let length = properties.value("getcontentlength", namespace: dav).flatMap({ Int64($0.trimmedSpaces) }) {
                    item.size = length
                }
                if let date = properties.value("getlastmodified", namespace: dav).flatMap({ HTTPHelpers.parseHTTPDate($0.trimmedSpaces) }) {
                    item.modified = date
                }
                if let etag = properties.value("getetag", namespace: dav)?.trimmedSpaces, !etag.isEmpty {
                    item.version = etag.hasPrefix("\"") || etag.hasPrefix("W/") ? etag : "\"" + etag + "\""
                }
                if let type = properties.value("getcontenttype", namespace: dav)?.trimmedSpaces, !type.isEmpty { item.mimeType = type }
            }
            if item.version.isEmpty { item.version = "\(item.modified)-\(item.size)" }
            return (urlPath(href.trimmedSpaces), item)
        }
    }
}

extension String {
    var trimmedSpaces: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}

/// `type "webdav"`: `url`, and `user` with `password_file` (or the environment) when the
/// share needs a login; `root` is a folder below the URL.
struct WebDAVProviderPlugin: CloudProviderPlugin {
    let type = "webdav"

    /// A share with a `user` takes a password (saved in `password_file`); one without needs none.
    func signIn(_ settings: [String: String]) -> SignInMethod { settings["user"] != nil ? .password : .none }
    func configuredUser(_ settings: [String: String]) -> String? { settings["user"] }
    let requiredSettings = ["url"]
    let accepts = ["user", "root"]

    func verify(password: String, _ settings: [String: String]) throws(StorageError) {
        try Self.verify(url: settings["url"] ?? "", root: settings["root"] ?? "/", user: settings["user"] ?? "", password: password)
    }

    /// One PROPFIND of the account's root with the password: refused, it is not saved.
    static func verify(url: String, root: String, user: String, password: String) throws(StorageError) {
        let provider = WebDAVProvider(
            account: user, baseURL: base(url, root: root), credentials: .password(user: user, password: password),
            pool: HTTPSessionPool(capacity: 1))
        do {
            _ = try provider.item("")
        } catch {
            if error.message.contains("access denied") {
                throw StorageError(.permission, "the server refused the user \"\(user)\" with this password")
            }
            throw error
        }
    }
    func secretFile(_ settings: [String: String]) -> (setting: String, suffix: String)? {
        settings["user"] != nil ? ("password_file", "password") : nil
    }

    func make(_ context: ProviderContext) throws(StorageError) -> any CloudProvider {
        let account = context.account
        guard let url = account.settings["url"] else { throw StorageError(.io, "\(account.name): no url") }
        guard let user = account.settings["user"] else {
            return WebDAVProvider(account: account.name, baseURL: Self.base(url, root: account.root), credentials: nil, pool: context.pool)
        }
        let file = account.settings["password_file"], name = account.name
        let password = try Secrets.read(file, account: name, kind: "password")
        return WebDAVProvider(
            account: name, baseURL: Self.base(url, root: account.root), credentials: .password(user: user, password: password),
            pool: context.pool
        ) {
            (try? Secrets.read(file, account: name, kind: "password")).map { .password(user: user, password: $0) }
        }
    }

    /// The collection of `root` below `url`, ending in `/`.
    static func base(_ url: String, root: String) -> String {
        var base = url.hasSuffix("/") ? url : url + "/"
        if root != "/" { base += HTTPHelpers.encode(String(root.drop { $0 == "/" })) + "/" }
        return base
    }
}
