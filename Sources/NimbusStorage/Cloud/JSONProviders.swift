import Foundation
import NimbusInput
import Synchronization

/// Reading providers' JSON without ceremony.
extension Dictionary where Key == String, Value == Any {
    func string(_ key: String) -> String? { self[key] as? String }
    func int64(_ key: String) -> Int64? {
        if let number = self[key] as? NSNumber { return number.int64Value }
        return (self[key] as? String).flatMap { Int64($0) }
    }
    func object(_ key: String) -> [String: Any]? { self[key] as? [String: Any] }
    func objects(_ key: String) -> [[String: Any]] { self[key] as? [[String: Any]] ?? [] }
}

extension StorageError {
    static func api(_ account: String, _ response: HTTPResponse, _ what: String) -> StorageError {
        .remote(account, HTTPHelpers.error(for: response, "\(what)"))
    }
}

/// Remembers where a file's bytes were last found (a signed URL after the redirect), so the
/// next block goes there directly until the link fails; then the provider resolves anew.
final class LinkCache: Sendable {
    private let links = Mutex<[String: (url: String, until: Date)]>([:])
    let lifetime: TimeInterval

    init(lifetime: TimeInterval) { self.lifetime = lifetime }

    func link(_ id: String, fresh: Bool, resolve: () throws(RemoteError) -> String) throws(RemoteError) -> String {
        if !fresh, let known = links.withLock({ $0[id] }), known.until > Date() { return known.url }
        let url = try resolve()
        links.withLock { $0[id] = (url, Date().addingTimeInterval(lifetime)) }
        return url
    }
}

// MARK: Yandex.Disk

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

// MARK: Dropbox

/// Dropbox API v2: `list_folder` + `continue` with a cursor, downloads pinned to the listed
/// revision (`rev:`) with a Range header, short-lived bearer tokens refreshed.
public final class DropboxProvider: CloudProvider {
    let api: JSONAPI
    let base: String
    let content: String
    let root: String
    let pool: HTTPSessionPool

    init(account: String, root: String, base: String, content: String, tokens: OAuthTokens, pool: HTTPSessionPool) {
        self.api = JSONAPI(account: account, tokens: tokens, pool: pool)
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

// MARK: Google Drive

/// Google Drive v3: folders are ids, found by walking names from `root`; children listed
/// with a parent query and page tokens; bytes with `alt=media` and a Range header.
public final class GoogleDriveProvider: CloudProvider {
    let api: JSONAPI
    let base: String
    let root: String
    let pool: HTTPSessionPool
    private let folders = Mutex<[String: String]>(["": "root"])

    init(account: String, root: String, base: String, tokens: OAuthTokens, pool: HTTPSessionPool) {
        self.api = JSONAPI(account: account, tokens: tokens, pool: pool)
        self.base = base
        self.root = root == "/" ? "" : String(root.drop { $0 == "/" })
        self.pool = pool
    }

    private static let fields = "nextPageToken,files(id,name,mimeType,size,md5Checksum,modifiedTime,headRevisionId)"

    private func children(ofFolder id: String) throws(StorageError) -> [[String: Any]] {
        var files: [[String: Any]] = []
        var token = ""
        repeat {
            let query = HTTPHelpers.encode("'\(id)' in parents and trashed=false", keepSlash: false)
            let url = base + "/drive/v3/files?q=\(query)&fields=\(HTTPHelpers.encode(Self.fields, keepSlash: false))"
                + "&pageSize=1000" + (token.isEmpty ? "" : "&pageToken=" + HTTPHelpers.encode(token, keepSlash: false))
            let (response, json): (HTTPResponse, Any?)
            do { (response, json) = try api.call { HTTPRequest(url: url) } } catch { throw .remote(api.account, error) }
            guard response.status == 200, let object = json as? [String: Any] else { throw .api(api.account, response, "files.list") }
            files += object.objects("files")
            // Pages may be short or empty before the end; only a missing token ends the list.
            token = object.string("nextPageToken") ?? ""
        } while !token.isEmpty
        return files
    }

    /// The folder id of an account path (relative to the configured root).
    private func folderID(_ path: String) throws(StorageError) -> String {
        let full = [root, path].filter { !$0.isEmpty }.joined(separator: "/")
        if let known = folders.withLock({ $0[full] }) { return known }
        var current = ""
        var id = "root"
        for part in full.split(separator: "/") {
            let next = current.isEmpty ? String(part) : current + "/" + part
            if let known = folders.withLock({ $0[next] }) {
                id = known
            } else {
                guard let found = try children(ofFolder: id).first(where: { $0.string("name") == String(part) }),
                    let foundID = found.string("id")
                else { throw StorageError(.notFound, "\(api.account): \(next) not found") }
                folders.withLock { $0[next] = foundID }
                id = foundID
            }
            current = next
        }
        return id
    }

    private func item(_ json: [String: Any], in path: String) -> RemoteItem {
        let name = json.string("name") ?? ""
        let isFolder = json.string("mimeType") == "application/vnd.google-apps.folder"
        return RemoteItem(
            name: name, path: path.isEmpty ? name : path + "/" + name, isDirectory: isFolder, size: json.int64("size") ?? 0,
            modified: json.string("modifiedTime").flatMap(HTTPHelpers.parseISODate) ?? 0, id: json.string("id") ?? name,
            version: json.string("md5Checksum") ?? json.string("headRevisionId") ?? "", mimeType: json.string("mimeType"))
    }

    public func list(_ path: String) throws(StorageError) -> [RemoteItem] {
        let items = try children(ofFolder: try folderID(path)).map { item($0, in: path) }
        let full = [root, path].filter { !$0.isEmpty }.joined(separator: "/")
        folders.withLock { folders in
            for item in items where item.isDirectory { folders[full.isEmpty ? item.name : full + "/" + item.name] = item.id }
        }
        // Google-native documents have no bytes to play.
        return items.filter { $0.isDirectory || $0.size > 0 }
    }

    public func item(_ path: String) throws(StorageError) -> RemoteItem {
        let parent = StoragePath.parent(path)
        let name = StoragePath.name(path)
        guard let found = try list(parent).first(where: { $0.name == name }) else {
            throw StorageError(.notFound, "\(api.account): \(path) not found")
        }
        return found
    }

    public func source(for item: RemoteItem) -> any RemoteSource {
        let url = base + "/drive/v3/files/" + HTTPHelpers.encode(item.id, keepSlash: false) + "?alt=media"
        return RangedHTTPSource(what: api.account, pool: pool, length: item.size, validator: nil) { [self] fresh throws(RemoteError) in
            if fresh { try api.tokens.refresh(after: api.tokens.currentAccess) }
            return HTTPTarget(url: url, headers: [try api.tokens.header()])
        }
    }
}

// MARK: OneDrive

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
