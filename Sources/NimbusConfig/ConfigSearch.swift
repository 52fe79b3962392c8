import Foundation
import Glibc

/// Where a daemon started without a config argument looks, and where a user's daemon puts its
/// private socket — MPD's rules, so a box switched from MPD starts on the user's own mpd.conf.
public enum ConfigSearch {
    /// Nimbus's own files first (`$XDG_CONFIG_HOME/nimbus/nimbusd.conf`,
    /// `/etc/nimbus/nimbusd.conf`), then MPD's order: `$XDG_CONFIG_HOME/mpd/mpd.conf`,
    /// `~/.mpdconf`, `~/.mpd/mpd.conf`, `/etc/mpd.conf`.
    public static func candidates(home: String, environment: [String: String]) -> [String] {
        let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        return [
            configHome + "/nimbus/nimbusd.conf", "/etc/nimbus/nimbusd.conf",
            configHome + "/mpd/mpd.conf", home + "/.mpdconf", home + "/.mpd/mpd.conf", "/etc/mpd.conf",
        ]
    }

    /// The first candidate that is a readable file, or nil (then Nimbus's safe defaults apply,
    /// where MPD would refuse to start).
    public static func find(home: String, environment: [String: String], readable: (String) -> Bool = Self.isReadableFile)
        -> String?
    {
        candidates(home: home, environment: environment).first(where: readable)
    }

    public static func isReadableFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && access(path, R_OK) == 0
    }

    /// MPD's `$XDG_RUNTIME_DIR/mpd/socket` (systemd's `$RUNTIME_DIRECTORY/socket` first): only
    /// for a daemon that is not root — a system-wide daemon has no per-user runtime directory.
    /// libmpdclient tries this socket first, so local clients reach the daemon with `file://`
    /// rights and no host setting.
    public static func runtimeSocket(environment: [String: String], effectiveUser: uid_t) -> String? {
        guard effectiveUser != 0 else { return nil }
        if let runtime = environment["RUNTIME_DIRECTORY"]?.split(separator: ":").first, runtime.hasPrefix("/") {
            return runtime + "/socket"
        }
        guard let user = environment["XDG_RUNTIME_DIR"], user.hasPrefix("/") else { return nil }
        return user + "/mpd/socket"
    }
}
