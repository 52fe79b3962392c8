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

    init(api: JSONAPI, root: String, base: String, pool: HTTPSessionPool) {
        self.api = api
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

/// `type "onedrive"`: Microsoft Graph, signed in with a device code
/// (https://learn.microsoft.com/entra/identity-platform/v2-oauth2-device-code).
struct OneDriveProviderPlugin: CloudProviderPlugin {
    let type = "onedrive"
    /// The app registered with the provider (README, Connect your cloud).
    let needs = ["client_id"]
    static let api = "https://graph.microsoft.com/v1.0"
    static let login = "https://login.microsoftonline.com/common/oauth2/v2.0"

    func signIn(_ settings: [String: String]) -> SignInMethod {
        .deviceCode(
            DeviceCodeSignIn.Endpoints(
                deviceCodeURL: Self.login + "/devicecode", tokenURL: Self.login + "/token", scope: "Files.Read offline_access",
                grantType: "urn:ietf:params:oauth:grant-type:device_code", codeField: "device_code", sendsSecret: false
            ).overridden(by: settings))
    }

    /// `GET /me/drive` names the `owner.user`: `displayName` and `email`
    /// (https://learn.microsoft.com/graph/api/drive-get).
    func identity(_ settings: [String: String]) -> IdentityQuery? {
        let base = settings["api_url"] ?? Self.api
        return IdentityQuery(request: { HTTPRequest(url: base + "/me/drive", headers: [("Authorization", "Bearer " + $0)]) }) { answer in
            let user = answer.object("owner")?.object("user")
            return (user?.string("displayName"), user?.string("email"))
        }
    }

    func make(_ context: ProviderContext) throws(StorageError) -> any CloudProvider {
        OneDriveProvider(api: try context.api(), root: context.account.root, base: context.setting("api_url", default: Self.api), pool: context.pool)
    }
}
