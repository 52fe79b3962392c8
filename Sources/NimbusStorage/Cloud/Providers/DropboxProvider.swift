import Foundation
import NimbusInput
import Synchronization

/// Dropbox API v2: `list_folder` + `continue` with a cursor, downloads pinned to the listed
/// revision (`rev:`) with a Range header, short-lived bearer tokens refreshed.
public final class DropboxProvider: CloudProvider {
    let api: JSONAPI
    let base: String
    let content: String
    let root: String
    let pool: HTTPSessionPool

    init(api: JSONAPI, root: String, base: String, content: String, pool: HTTPSessionPool) {
        self.api = api
        self.base = base
        self.content = content
        self.root = root == "/" ? "" : root
        self.pool = pool
    }

    private func remote(_ path: String) -> String { path.isEmpty ? root : root + "/" + path }

    private func item(_ json: [String: Any]) -> RemoteItem {
        var path = json.string("path_display") ?? ""
        if !root.isEmpty, path.lowercased().hasPrefix(root.lowercased()) { path.removeFirst(root.count) }
        path = String(path.drop { $0 == "/" })
        return RemoteItem(
            name: json.string("name") ?? "", path: path, isDirectory: json.string(".tag") == "folder",
            size: json.int64("size") ?? 0, modified: json.string("server_modified").flatMap(HTTPHelpers.parseISODate) ?? 0,
            id: json.string("id") ?? path, version: json.string("rev") ?? "")
    }

    private func post(_ endpoint: String, _ body: [String: Any]) throws(StorageError) -> [String: Any] {
        let data = Array((try? JSONSerialization.data(withJSONObject: body)) ?? Data())
        let url = base + endpoint
        let (response, json): (HTTPResponse, Any?)
        do {
            (response, json) = try api.call {
                HTTPRequest(method: "POST", url: url, headers: [("Content-Type", "application/json")], body: data)
            }
        } catch { throw .remote(api.account, error) }
        if response.status == 409 { throw StorageError(.notFound, "\(api.account): \(body["path"] ?? "") not found") }
        guard response.status == 200, let object = json as? [String: Any] else { throw .api(api.account, response, endpoint) }
        return object
    }

    public func list(_ path: String) throws(StorageError) -> [RemoteItem] {
        var page = try post("/2/files/list_folder", ["path": remote(path), "recursive": false, "limit": 2000])
        var items = page.objects("entries").filter { $0.string(".tag") != "deleted" }.map(item)
        while page["has_more"] as? Bool == true, let cursor = page.string("cursor") {
            page = try post("/2/files/list_folder/continue", ["cursor": cursor])
            items += page.objects("entries").filter { $0.string(".tag") != "deleted" }.map(item)
        }
        return items
    }

    public func item(_ path: String) throws(StorageError) -> RemoteItem {
        item(try post("/2/files/get_metadata", ["path": remote(path)]))
    }

    public func source(for item: RemoteItem) -> any RemoteSource {
        let url = content + "/2/files/download"
        let argument = "{\"path\": \"rev:\(item.version)\"}"
        return RangedHTTPSource(what: api.account, pool: pool, length: item.size, validator: nil) { [self] fresh throws(RemoteError) in
            if fresh { try api.tokens.refresh(after: api.tokens.currentAccess) }
            return HTTPTarget(url: url, headers: [try api.tokens.header(), ("Dropbox-API-Arg", argument)])
        }
    }
}

/// `type "dropbox"`: API v2 with short-lived bearer tokens refreshed from the token file,
/// signed in with PKCE and no redirect (Dropbox shows the code, the person pastes it back;
/// https://developers.dropbox.com/oauth-guide, "PKCE").
struct DropboxProviderPlugin: CloudProviderPlugin {
    let type = "dropbox"
    /// The app registered with the provider (README, Connect your cloud).
    let needs = ["client_id"]
    static let api = "https://api.dropboxapi.com"

    func signIn(_ settings: [String: String]) -> SignInMethod {
        .authorizationCode(
            CodeSignIn.Endpoints(
                authorizeURL: "https://www.dropbox.com/oauth2/authorize", tokenURL: Self.api + "/oauth2/token", scope: nil,
                extra: ["token_access_type": "offline"], usesLoopback: false
            ).overridden(by: settings))
    }

    /// `POST /2/users/get_current_account` answers `name.display_name` and `email`
    /// (https://www.dropbox.com/developers/documentation/http/documentation#users-get_current_account).
    func identity(_ settings: [String: String]) -> IdentityQuery? {
        let base = settings["api_url"] ?? Self.api
        return IdentityQuery(request: { access in
            HTTPRequest(
                method: "POST", url: base + "/2/users/get_current_account",
                headers: [("Authorization", "Bearer " + access), ("Content-Type", "application/json")], body: Array("null".utf8))
        }) { answer in (answer.object("name")?.string("display_name"), answer.string("email")) }
    }

    func make(_ context: ProviderContext) throws(StorageError) -> any CloudProvider {
        DropboxProvider(
            api: try context.api(), root: context.account.root, base: context.setting("api_url", default: Self.api),
            content: context.setting("content_url", default: "https://content.dropboxapi.com"), pool: context.pool)
    }
}
