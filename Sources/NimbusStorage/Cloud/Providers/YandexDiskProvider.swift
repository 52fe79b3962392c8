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

    init(account: String, root: String, base: String, tokens: OAuthTokens, pool: HTTPSessionPool) {
        self.api = JSONAPI(account: account, tokens: tokens, pool: pool)
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

/// `type "yandex-disk"`: the REST API with an OAuth token (`Authorization: OAuth`).
struct YandexDiskProviderPlugin: CloudProviderPlugin {
    let type = "yandex-disk"

    func make(_ context: ProviderContext) throws(StorageError) -> any CloudProvider {
        YandexDiskProvider(
            account: context.account.name, root: context.account.root,
            base: context.setting("api_url", default: "https://cloud-api.yandex.net"),
            tokens: try context.tokens(defaultURL: "https://oauth.yandex.ru/token", scheme: "OAuth"), pool: context.pool)
    }
}
