import Foundation
import NimbusModel
import NimbusStorage

/// `load`, `listplaylist` and `listplaylistinfo` of a URL (`load "http://host/radio.m3u"`), as
/// MPD's playlist plugins read remote playlists: fetched whole (bounded), its format chosen by
/// `Content-Type`, then suffix, then its first bytes; entries relative to the playlist are
/// resolved against its address (after redirects); entries Nimbus cannot play (another scheme,
/// a local path a remote file has no business naming) are left out.
extension SongSources {
    /// Beyond this a "playlist" is something else (MPD reads 64 Ki entries of a pls at most).
    static let playlistLimit = 4 << 20

    /// Whether a URL could be a playlist by its suffix (the web page asks before `load`).
    public func isPlaylistURL(_ uri: String) -> Bool { PlaylistFormats.standard.claims(mimeType: nil, uri: uri) }

    /// The songs of the playlist at `url`, with the tags the playlist gives them. Blocks on the
    /// network: callers run it off the core loop.
    public func remotePlaylist(_ url: String) throws(SongSourceError) -> [Song] {
        guard let http = httpFiles, remoteSong(url) != nil else { throw .noSuchPlaylist }
        let formats = PlaylistFormats.standard
        let (response, bytes) = try SongSourceError.reading {
            try http.fetchDocument(url, limit: Self.playlistLimit) { response in
                let type = response[header: "content-type"]
                return formats.claims(mimeType: type, uri: url) || Self.mayHoldText(type)
            }
        }
        // A server's refusal (404, 403 …) is "No such playlist", as in MPD; a network that
        // fails is an error with curl's words (thrown by the fetch).
        guard response.isSuccess else { throw .noSuchPlaylist }
        guard !bytes.isEmpty || formats.claims(mimeType: response[header: "content-type"], uri: url),
            let entries = formats.parse(bytes, mimeType: response[header: "content-type"], uri: url)
        else { throw .noSuchPlaylist }
        let base = URL(string: response.effectiveURL.isEmpty ? url : response.effectiveURL)
        return entries.compactMap { entry in
            guard let resolved = Self.resolve(entry.uri, against: base), remoteSong(resolved) != nil else { return nil }
            return Song(uri: resolved, tag: entry.tag)
        }
    }

    /// A type a playlist may be served as when its server does not know better; audio, video
    /// and images are never read (an internet radio URL `load`ed by mistake).
    static func mayHoldText(_ type: String?) -> Bool {
        guard let type else { return true }
        let essence = PlaylistFormats.essence(type)
        return !(essence.hasPrefix("audio/") || essence.hasPrefix("video/") || essence.hasPrefix("image/"))
    }

    /// An absolute URL as it is; a relative one (`../x.mp3`, `/a/b.ogg`) against the
    /// playlist's address, as a browser resolves it.
    static func resolve(_ reference: String, against base: URL?) -> String? {
        if Song.isURL(reference) { return reference }
        guard let base else { return nil }
        let escaped = reference.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed.union(["%"])) ?? reference
        return URL(string: escaped, relativeTo: base)?.absoluteString
    }
}
