import Foundation
import NimbusInput
import Synchronization

/// Yandex.Disk's REST API: folders paged by offset, `Authorization: OAuth`, download links
/// that redirect to a signed storage URL (which needs no token and is used for ranges until
/// it expires).
public final class YandexDiskProvider: CloudProvider {
    let api: JSONAPI
    let base: String
    let root: String
    let pool: HTTPSessionPool
    private let links = LinkCache(lifetime: 240)

    init(api: JSONAPI, root: String, base: String, pool: HTTPSessionPool) {
        self.api = api
        self.base = base
        self.root = root == "/" ? "" : root
        self.pool = pool
    }

    private func diskPath(_ path: String) -> String { "disk:" + root + "/" + path }

    private func relative(_ diskPath: String) -> String {
        var path = diskPath.hasPrefix("disk:") ? String(diskPath.dropFirst(5)) : diskPath
        if !root.isEmpty, path.hasPrefix(root) { path.removeFirst(root.count) }
        return String(path.drop { $0 == "/" })
    }

    private func item(_ json: [String: Any]) -> RemoteItem {
        let path = relative(json.string("path") ?? "")
        return RemoteItem(
            name: json.string("name") ?? "", path: path, isDirectory: json.string("type") == "dir", size: json.int64("size") ?? 0,
            modified: json.string("modified").flatMap(HTTPHelpers.parseISODate) ?? 0, id: path,
            version: json.string("md5") ?? json.int64("revision").map(String.init) ?? "", mimeType: json.string("mime_type"))
    }

    private func resource(_ path: String, offset: Int) throws(StorageError) -> [String: Any] {
        let url = base + "/v1/disk/resources?path=" + HTTPHelpers.encode(diskPath(path), keepSlash: false)
            + "&limit=100&offset=\(offset)"
        let (response, json): (HTTPResponse, Any?)
        do { (response, json) = try api.call { HTTPRequest(url: url) } } catch { throw .remote(api.account, error) }
        guard response.status == 200, let object = json as? [String: Any] else { throw .api(api.account, response, path) }
        return object
    }

    public func list(_ path: String) throws(StorageError) -> [RemoteItem] {
        var items: [RemoteItem] = []
        while true {
            let embedded = try resource(path, offset: items.count).object("_embedded") ?? [:]
            let page = embedded.objects("items")
            items += page.map(item)
            // Short pages happen before the end: only the total says when the folder ended.
            guard !page.isEmpty, items.count < (embedded.int64("total").map(Int.init) ?? 0) else { return items }
        }
    }

    public func item(_ path: String) throws(StorageError) -> RemoteItem { item(try resource(path, offset: 0)) }

    public func source(for item: RemoteItem) -> any RemoteSource {
        let what = api.account
        return RangedHTTPSource(what: what, pool: pool, length: item.size, validator: nil) { [self] fresh throws(RemoteError) in
            let url = try links.link(item.id, fresh: fresh) { () throws(RemoteError) -> String in
                let request = base + "/v1/disk/resources/download?path=" + HTTPHelpers.encode(diskPath(item.path), keepSlash: false)
                let (response, json) = try api.call { HTTPRequest(url: request) }
                guard response.status == 200, let href = (json as? [String: Any])?.string("href") else {
                    throw HTTPHelpers.error(for: response, "\(what): download link for \(item.path)")
                }
                return href
            }
            return HTTPTarget(url: url)
        }
    }
}

/// `type "yandex-disk"`: the REST API with an OAuth token (`Authorization: OAuth`), signed in
/// with a device code (https://yandex.com/dev/id/doc/en/codes/screen-code-oauth).
struct YandexDiskProviderPlugin: CloudProviderPlugin {
    let type = "yandex-disk"
    /// The app registered with the provider (README, Connect your cloud).
    let needs = ["client_id", "client_secret"]
    let tokenScheme = "OAuth"
    static let api = "https://cloud-api.yandex.net"

    func signIn(_ settings: [String: String]) -> SignInMethod {
        .deviceCode(
            DeviceCodeSignIn.Endpoints(
                deviceCodeURL: "https://oauth.yandex.ru/device/code", tokenURL: "https://oauth.yandex.ru/token", scope: nil,
                grantType: "device_code", codeField: "code", sendsSecret: true
            ).overridden(by: settings))
    }

    /// `GET /v1/disk` names the `user`: `display_name` and `login`, a Yandex address without
    /// its domain (https://yandex.com/dev/disk-api/doc/en/reference/capacity).
    func identity(_ settings: [String: String]) -> IdentityQuery? {
        let base = settings["api_url"] ?? Self.api
        return IdentityQuery(request: { HTTPRequest(url: base + "/v1/disk", headers: [("Authorization", "OAuth " + $0)]) }) { answer in
            let user = answer.object("user"), login = user?.string("login")
            return (user?.string("display_name") ?? login, login.map { $0.contains("@") ? $0 : $0 + "@yandex.ru" })
        }
    }

    func make(_ context: ProviderContext) throws(StorageError) -> any CloudProvider {
        YandexDiskProvider(
            api: try context.api(), root: context.account.root, base: context.setting("api_url", default: Self.api), pool: context.pool)
    }
}
