import NimbusInput

/// Who signed in, asked of the drive API the account will use (so it also proves the token
/// reads the drive): Yandex.Disk's `GET /v1/disk` names the `user` (`login`,
/// `display_name`; https://yandex.com/dev/disk-api/doc/en/reference/capacity), Graph's
/// `GET /me/drive` names the `owner.user` (`displayName`, `email`;
/// https://learn.microsoft.com/graph/api/drive-get), Dropbox's
/// `POST /2/users/get_current_account` its `name.display_name` and `email`
/// (https://www.dropbox.com/developers/documentation/http/documentation#users-get_current_account),
/// Drive's `GET /drive/v3/about?fields=user` its `user` (`displayName`, `emailAddress`;
/// https://developers.google.com/drive/api/reference/rest/v3/about).
public enum SignInIdentity {
    public static func name(type: String, settings: [String: String], access: String) -> String? {
        let request: HTTPRequest
        switch type {
        case "dropbox":
            let base = settings["api_url"] ?? "https://api.dropboxapi.com"
            request = HTTPRequest(
                method: "POST", url: base + "/2/users/get_current_account",
                headers: [("Authorization", "Bearer " + access), ("Content-Type", "application/json")], body: Array("null".utf8))
        case "google-drive":
            let base = settings["api_url"] ?? "https://www.googleapis.com"
            request = HTTPRequest(url: base + "/drive/v3/about?fields=user", headers: [("Authorization", "Bearer " + access)])
        case "yandex-disk":
            let base = settings["api_url"] ?? "https://cloud-api.yandex.net"
            request = HTTPRequest(url: base + "/v1/disk", headers: [("Authorization", "OAuth " + access)])
        case "onedrive":
            let base = settings["api_url"] ?? "https://graph.microsoft.com/v1.0"
            request = HTTPRequest(url: base + "/me/drive", headers: [("Authorization", "Bearer " + access)])
        default:
            return nil
        }
        guard let (status, json) = try? SignInHTTP.send(request, pool: HTTPSessionPool(capacity: 1)), status == 200, let json else {
            return nil
        }
        let user = (json["user"] as? [String: Any]) ?? ((json["owner"] as? [String: Any])?["user"] as? [String: Any])
            ?? (json["account_id"] != nil ? json : nil)
        guard let user else { return nil }
        let name = (user["display_name"] as? String) ?? (user["displayName"] as? String)
            ?? ((user["name"] as? [String: Any])?["display_name"] as? String) ?? (user["login"] as? String)
        let email = (user["email"] as? String) ?? (user["emailAddress"] as? String)
            ?? (user["login"] as? String).map { $0.contains("@") ? $0 : $0 + "@yandex.ru" }
        switch (name, email) {
        case (let name?, let email?) where name != email: return "\(name) (\(email))"
        case (let name?, _): return name
        case (nil, let email?): return email
        default: return nil
        }
    }
}
