import NimbusModel
import Foundation
import NimbusInput
import Synchronization

/// OneDrive through Microsoft Graph: children by path with `@odata.nextLink` paging, the
/// content version in `cTag`, bytes from the pre-authenticated `downloadUrl` (fetched without
/// a token, always with absolute ranges), renewed from the item when it expires.
public final class OneDriveProvider: CloudProvider {
    let api: JSONAPI
    let base: String
    let root: String
    let pool: HTTPSessionPool
    private let links = LinkCache(lifetime: 100)

    init(account: String, root: String, base: String, tokens: OAuthTokens, pool: HTTPSessionPool) {
        self.api = JSONAPI(account: account, tokens: tokens, pool: pool)
        self.base = base
        self.root = root == "/" ? "" : String(root.drop { $0 == "/" })
        self.pool = pool
    }

    private func address(_ path: String, children: Bool) -> String {
        let full = [root, path].filter { !$0.isEmpty }.joined(separator: "/")
        if full.isEmpty { return base + "/me/drive/root" + (children ? "/children" : "") }
        return base + "/me/drive/root:/" + HTTPHelpers.encode(full) + (children ? ":/children" : "")
    }

    private func get(_ url: String) throws(StorageError) -> [String: Any] {
        let (response, json): (HTTPResponse, Any?)
        do { (response, json) = try api.call { HTTPRequest(url: url) } } catch { throw .remote(api.account, error) }
        guard response.status == 200, let object = json as? [String: Any] else { throw .api(api.account, response, "Graph") }
        return object
    }

    private func item(_ json: [String: Any], in path: String) -> RemoteItem {
        let name = json.string("name") ?? ""
        return RemoteItem(
            name: name, path: path.isEmpty ? name : path + "/" + name, isDirectory: json["folder"] != nil,
            size: json.int64("size") ?? 0, modified: json.string("lastModifiedDateTime").flatMap(HTTPHelpers.parseISODate) ?? 0,
            id: json.string("id") ?? name, version: json.string("cTag") ?? json.string("eTag") ?? "",
            mimeType: json.object("file")?.string("mimeType"))
    }

    public func list(_ path: String) throws(StorageError) -> [RemoteItem] {
        var page = try get(address(path, children: true) + "?$top=200")
        var values = page.objects("value")
        while let next = page.string("@odata.nextLink") {
            page = try get(next)
            values += page.objects("value")
        }
        for value in values {
            if let id = value.string("id"), let url = value.string("@microsoft.graph.downloadUrl") {
                _ = try? links.link(id, fresh: true) { () throws(RemoteError) -> String in url }
            }
        }
        return values.map { item($0, in: path) }
    }

    public func item(_ path: String) throws(StorageError) -> RemoteItem {
        item(try get(address(path, children: false)), in: StoragePath.parent(path))
    }

    public func source(for item: RemoteItem) -> any RemoteSource {
        let what = api.account
        return RangedHTTPSource(what: what, pool: pool, length: item.size, validator: nil) { [self] fresh throws(RemoteError) in
            let url = try links.link(item.id, fresh: fresh) { () throws(RemoteError) -> String in
                let json: [String: Any]
                do throws(StorageError) {
                    json = try get(address(item.path, children: false))
                } catch {
                    throw RemoteError(error.kind == .notFound ? .notFound : .transient, error.message)
                }
                guard let url = json.string("@microsoft.graph.downloadUrl") else {
                    throw RemoteError(.notFound, "\(what): no download link for \(item.path)")
                }
                return url
            }
            // The link is pre-authenticated: no Authorization header may go with it.
            return HTTPTarget(url: url)
        }
    }
}

/// `type "onedrive"`: Microsoft Graph with rotating refresh tokens.
struct OneDriveProviderPlugin: CloudProviderPlugin {
    let type = "onedrive"

    func make(_ context: ProviderContext) throws(StorageError) -> any CloudProvider {
        OneDriveProvider(
            account: context.account.name, root: context.account.root,
            base: context.setting("api_url", default: "https://graph.microsoft.com/v1.0"),
            tokens: try context.tokens(defaultURL: "https://login.microsoftonline.com/common/oauth2/v2.0/token"),
            pool: context.pool)
    }
}
