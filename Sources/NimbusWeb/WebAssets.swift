import CZlib
import Glibc

/// The page's files, built into the binary (`Assets/`, embedded by SwiftPM: no build step),
/// each kept with its gzip form and an ETag computed once at start, so a second visit is
/// answered `304 Not Modified` and a first one sends the compressed bytes. Nothing but these
/// files is ever served: a path is looked up by name, never opened.
public struct WebAssets: Sendable {
    public struct Asset: Sendable {
        public let name: String
        public let type: String
        public let bytes: [UInt8]
        public let gzipped: [UInt8]?
        public let etag: String
        /// Every file is asked again each visit, answered `304 Not Modified` by its ETag while
        /// it is the same: kept for a day instead, an upgraded daemon's page ran a day-old
        /// module beside its new `index.html` (the modules are loaded by plain names).
        public var cacheControl: String { "no-cache" }
    }

    public let assets: [String: Asset]

    public init(_ files: [(name: String, bytes: [UInt8])]) {
        var assets: [String: Asset] = [:]
        for (name, bytes) in files {
            let type = Self.type(of: name)
            let text = type.hasPrefix("text/") || type.hasPrefix("application/javascript") || type.hasPrefix("image/svg")
                || type.hasPrefix("application/manifest+json")
            let gzipped = text ? Self.gzip(bytes).flatMap { $0.count < bytes.count ? $0 : nil } : nil
            assets[name] = Asset(name: name, type: type, bytes: bytes, gzipped: gzipped, etag: "\"\(Self.fnv(bytes))\"")
        }
        self.assets = assets
    }

    /// The shipped page.
    public static let standard = WebAssets([
        ("index.html", PackageResources.index_html), ("app.js", PackageResources.app_js), ("mpd.js", PackageResources.mpd_js),
        ("ui.js", PackageResources.ui_js), ("strings.js", PackageResources.strings_js), ("now.js", PackageResources.now_js),
        ("queue.js", PackageResources.queue_js), ("library.js", PackageResources.library_js),
        ("accounts.js", PackageResources.accounts_js), ("offline.js", PackageResources.offline_js),
        ("playlists.js", PackageResources.playlists_js), ("settings.js", PackageResources.settings_js),
        ("podcasts.js", PackageResources.podcasts_js), ("phones.js", PackageResources.phones_js),
        ("equalizer.js", PackageResources.equalizer_js),
        ("style.css", PackageResources.style_css), ("icon.svg", PackageResources.icon_svg),
        ("manifest.webmanifest", PackageResources.manifest_webmanifest),
    ])

    /// These files and `more` (the PNG icons the daemon draws at start).
    public func adding(_ more: [(name: String, bytes: [UInt8])]) -> WebAssets {
        WebAssets(assets.values.map { ($0.name, $0.bytes) } + more)
    }

    /// The asset a request path names: `/` is the page, `/NAME` one of its files; anything
    /// else (other folders, `..`, encoded tricks) is nil.
    public func asset(forPath path: String) -> Asset? {
        let path = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        if path == "/" || path.isEmpty { return assets["index.html"] }
        if path == "/favicon.ico" { return assets["icon.svg"] }
        guard path.hasPrefix("/"), path.utf8.count <= 128 else { return nil }
        let name = String(path.dropFirst())
        guard !name.contains("/"), !name.contains("%"), !name.hasPrefix(".") else { return nil }
        return assets[name]
    }

    /// The whole app shell: what a first visit transfers (gzip where it helps).
    public var shellBytes: Int { assets.values.reduce(0) { $0 + ($1.gzipped?.count ?? $1.bytes.count) } }

    static func type(of name: String) -> String {
        switch name.split(separator: ".").last {
        case "html": return "text/html; charset=utf-8"
        case "js": return "application/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "json": return "application/json"
        case "webmanifest": return "application/manifest+json"
        default: return "application/octet-stream"
        }
    }

    static func gzip(_ bytes: [UInt8]) -> [UInt8]? {
        var output: UnsafeMutablePointer<UInt8>?
        let count = bytes.withUnsafeBufferPointer { nimbus_gzip($0.baseAddress, $0.count, &output) }
        guard count > 0, let output else { return nil }
        defer { free(output) }
        return Array(UnsafeBufferPointer(start: output, count: count))
    }

    /// 64-bit FNV-1a as hex: changes whenever the file does.
    static func fnv(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
