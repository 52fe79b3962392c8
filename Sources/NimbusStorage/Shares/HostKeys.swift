import Foundation
import NimbusInput
import NimbusSupport

/// SSH host keys in an OpenSSH `known_hosts` file of the account's own
/// (`[host]:port ssh-ed25519 AAAA…`, so a line can be copied from or to `~/.ssh/known_hosts`).
/// A key the file does not hold is accepted only when the person confirmed its SHA-256
/// fingerprint (`fingerprint SHA256:…`, as `ssh-keygen -lf` prints it): then it is added. A
/// host whose key changed is refused, as ssh refuses it.
enum HostKeys {
    /// `SHA256:` and the unpadded base64 of the key's digest: OpenSSH's way of showing it.
    static func fingerprint(_ key: [UInt8]) -> String {
        var text = Data(SHA256.digest(key)).base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return "SHA256:" + text
    }

    /// The key's type, read from the blob itself (SSH wire format: a length and the name).
    static func type(_ key: [UInt8]) -> String? {
        guard key.count > 4 else { return nil }
        let length = Int(key[0]) << 24 | Int(key[1]) << 16 | Int(key[2]) << 8 | Int(key[3])
        guard length > 0, length < 64, key.count >= 4 + length else { return nil }
        return String(validating: key[4..<(4 + length)], as: UTF8.self)
    }

    static func hostField(_ share: ShareURL) -> String {
        guard let port = share.port, port != 22 else { return share.host }
        return "[\(share.host)]:\(port)"
    }

    /// The check for one share: the file read at each connection (another sign-in may have
    /// added to it), the confirmed fingerprint (if any) trusted once and written down.
    static func check(share: ShareURL, file: String?, confirmed: String?) -> HostKeyCheck {
        HostKeyCheck { key in
            let host = hostField(share), encoded = Data(key).base64EncodedString()
            let lines = file.flatMap { (try? AtomicFile.read($0)) ?? nil }.map { String(decoding: $0, as: UTF8.self) } ?? ""
            var known = false
            for line in lines.split(separator: "\n") {
                let fields = line.split(separator: " ")
                guard fields.count >= 3, fields[0].split(separator: ",").contains(Substring(host)) else { continue }
                if fields[2] == encoded { return true }
                known = true
            }
            // A changed key is refused even with a fingerprint: ssh's rule, and the person must remove the old line.
            guard !known, let confirmed, confirmed == fingerprint(key), let file, let type = type(key) else { return false }
            let text = lines + (lines.isEmpty || lines.hasSuffix("\n") ? "" : "\n") + "\(host) \(type) \(encoded)\n"
            try? FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            return (try? AtomicFile.write(Array(text.utf8), to: file, mode: 0o600)) != nil
        }
    }

    /// Why the connection was refused, with the fingerprint to check on the server.
    static func refusal(_ key: [UInt8]?, share: ShareURL) -> String {
        guard let key else { return "the server's host key could not be checked" }
        return "the server's host key \(fingerprint(key)) is not trusted yet — check it on the server (ssh-keygen -lf "
            + "/etc/ssh/ssh_host_ed25519_key.pub) and give it as fingerprint \(fingerprint(key))"
            + " (a setting of the account, or ?fingerprint= in the mount's address); a key that changed must be removed from known_hosts first"
    }
}
