/// Where a song's bytes are, worked out once from its URI. The server (whether an answer
/// waits on the network), the player (how to open it) and the offline pins (what can be kept)
/// all ask this, instead of each deciding in its own way what "remote" means.
public enum SongLocation: Equatable, Sendable {
    /// A file in the local music directory (`Artist/Album/01.flac`).
    case library(String)
    /// A file of a mounted cloud account or share (`yadisk/Jazz/01.flac`), read through the
    /// range cache.
    case mounted(mount: String, path: String)
    /// A URL a client queued (`https://host/song.mp3`, a radio station).
    case url(String)
    /// A file named by its absolute path (local clients only).
    case file(String)

    /// `isMount`: whether a top-level folder of the library is a mount.
    public init(_ uri: String, isMount: (String) -> Bool) {
        if Song.isURL(uri) {
            self = .url(uri)
        } else if uri.hasPrefix("/") {
            self = .file(uri)
        } else {
            let first = StoragePath.firstSegment(uri)
            self = !first.isEmpty && isMount(first) ? .mounted(mount: first, path: uri) : .library(uri)
        }
    }

    /// Read over a network: what would wait on it runs off the core loop.
    public var isNetwork: Bool {
        switch self {
        case .mounted, .url: true
        case .library, .file: false
        }
    }

    /// A file of the library's tree (local or mounted), as opposed to a URL or a path.
    public var isInLibrary: Bool {
        switch self {
        case .library, .mounted: true
        case .url, .file: false
        }
    }

    public var isMounted: Bool {
        if case .mounted = self { return true }
        return false
    }
}
