import NimbusModel
import Foundation
import NimbusInput
import Synchronization

/// Google Drive v3: folders are ids, found by walking names from `root`; children listed
/// with a parent query and page tokens; bytes with `alt=media` and a Range header.
public final class GoogleDriveProvider: CloudProvider {
    let api: JSONAPI
    let base: String
    let root: String
    let pool: HTTPSessionPool
    private let folders = Mutex<[String: String]>(["": "root"])

    init(api: JSONAPI, root: String, base: String, pool: HTTPSessionPool) {
        self.api = api
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

/// `type "google-drive"`: Drive v3, signed in with PKCE and a loopback redirect (the
/// browser is sent back to the box; https://developers.google.com/identity/protocols/oauth2/native-app).
struct GoogleDriveProviderPlugin: CloudProviderPlugin {
    let type = "google-drive"
    /// The app registered with the provider (README, Connect your cloud).
    let needs = ["client_id", "client_secret"]
    static let api = "https://www.googleapis.com"

    func signIn(_ settings: [String: String]) -> SignInMethod {
        .authorizationCode(
            CodeSignIn.Endpoints(
                authorizeURL: "https://accounts.google.com/o/oauth2/v2/auth", tokenURL: "https://oauth2.googleapis.com/token",
                scope: "https://www.googleapis.com/auth/drive.readonly", extra: ["access_type": "offline", "prompt": "consent"],
                usesLoopback: true
            ).overridden(by: settings))
    }

    /// `GET /drive/v3/about?fields=user` answers `user.displayName` and `user.emailAddress`
    /// (https://developers.google.com/drive/api/reference/rest/v3/about).
    func identity(_ settings: [String: String]) -> IdentityQuery? {
        let base = settings["api_url"] ?? Self.api
        return IdentityQuery(request: { HTTPRequest(url: base + "/drive/v3/about?fields=user", headers: [("Authorization", "Bearer " + $0)]) }) {
            answer in (answer.object("user")?.string("displayName"), answer.object("user")?.string("emailAddress"))
        }
    }

    func make(_ context: ProviderContext) throws(StorageError) -> any CloudProvider {
        GoogleDriveProvider(api: try context.api(), root: context.account.root, base: context.setting("api_url", default: Self.api), pool: context.pool)
    }
}
