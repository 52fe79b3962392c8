import Foundation
import Glibc

/// `~` and `~user` expansion as MPD applies it to path settings.
public enum PathExpansion {
    public static func expand(_ path: String, home: String? = nil) -> String {
        guard path.hasPrefix("~") else { return path }
        let rest = path.dropFirst()
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let user = String(rest[..<slash])
        let tail = String(rest[slash...])
        if user.isEmpty {
            return (home ?? currentHome()) + tail
        }
        guard let entry = getpwnam(user), let dir = entry.pointee.pw_dir else { return path }
        return String(cString: dir) + tail
    }

    public static func currentHome() -> String {
        if let home = ProcessInfo.processInfo.environment["HOME"], !home.isEmpty { return home }
        if let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir { return String(cString: dir) }
        return "/"
    }
}
