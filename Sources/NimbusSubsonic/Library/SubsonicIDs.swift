import NimbusSupport

/// How ids are made — and they must never change: a phone's offline copy, its stars and its
/// playlists are keyed by them (Navidrome re-encoded its ids in one upgrade and every
/// client's offline library broke). So they come from what a user would call the same
/// thing, through a fixed function, not from a counter or a database row:
///
/// - song: `s` + the first 16 hex digits of MD5("song" NUL URI), the URI relative to the
///   music directory (`dav/Band/Album/01.flac`) — the same file is the same song, across
///   restarts, updates and re-tagging;
/// - album: `a` + MD5("album" NUL album artist NUL album), the album artist with MPD's
///   fallback to the artist — the grouping of `list album group albumartist`;
/// - artist: `r` + MD5("artist" NUL album artist);
/// - folder (directory browsing): `d` + MD5("dir" NUL path);
/// - podcast channel: `c` + MD5("podcast" NUL the show's folder name under `podcasts/`);
///   its episodes are songs, with song ids;
/// - internet radio station: `i` + MD5("radio" NUL stream URL);
/// - music folder: a number, 0 for the music directory itself, else the first 30 bits of
///   MD5("folder" NUL mount name) + 1 (the API wants integers).
///
/// `SubsonicIDTests` pins examples of each, so a change to this function fails the suite.
public enum SubsonicIDs {
    public static func song(_ uri: String) -> String { "s" + hash("song", uri) }
    public static func album(artist: String, album: String) -> String { "a" + hash("album", artist + "\u{0}" + album) }
    public static func artist(_ name: String) -> String { "r" + hash("artist", name) }

    /// The 64 bits an id's hex digits stand for: what the library index keeps (8 bytes per
    /// song rather than a 17-character string), written out only when an answer names it.
    static func songKey(_ uri: String) -> UInt64 { key("song", uri) }
    static func albumKey(artist: String, album: String) -> UInt64 { key("album", artist + "\u{0}" + album) }
    static func artistKey(_ name: String) -> UInt64 { key("artist", name) }

    static func key(_ kind: String, _ text: String) -> UInt64 {
        MD5.digest(Array((kind + "\u{0}" + text).utf8)).prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// `prefix` and the key as 16 lower-case hex digits.
    static func id(_ prefix: Character, _ key: UInt64) -> String {
        String(unsafeUninitializedCapacity: 17) { buffer in
            buffer[0] = prefix.asciiValue ?? UInt8(ascii: "x")
            for index in 0..<16 { buffer[1 + index] = hexBytes[Int((key >> UInt64(60 - 4 * index)) & 15)] }
            return 17
        }
    }

    private static let hexBytes = Array("0123456789abcdef".utf8)

    /// The key of an id made for `prefix`, or nil for anything else.
    static func key(of id: String, prefix: Character) -> UInt64? {
        guard isWellFormed(id, prefix: prefix) else { return nil }
        return UInt64(id.dropFirst(), radix: 16)
    }
    public static func directory(_ path: String) -> String { "d" + hash("dir", path) }
    public static func podcast(_ name: String) -> String { "c" + hash("podcast", name) }
    public static func radio(_ url: String) -> String { "i" + hash("radio", url) }

    public static func folder(_ mount: String?) -> Int {
        guard let mount else { return 0 }
        let digest = MD5.digest(Array(("folder\u{0}" + mount).utf8))
        let bits = Int(digest[0]) << 22 | Int(digest[1]) << 14 | Int(digest[2]) << 6 | Int(digest[3] >> 2)
        return bits + 1
    }

    /// 64 bits as 16 lower-case hex digits.
    static func hash(_ kind: String, _ key: String) -> String {
        let digest = MD5.digest(Array((kind + "\u{0}" + key).utf8))
        var out = ""
        out.reserveCapacity(16)
        for byte in digest.prefix(8) {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 15)])
        }
        return out
    }

    private static let hexDigits = Array("0123456789abcdef")

    /// Whether `id` is one this scheme could have made for `prefix` (anything else — a path,
    /// a huge string — is "not found" without a lookup).
    static func isWellFormed(_ id: String, prefix: Character) -> Bool {
        id.utf8.count == 17 && id.first == prefix && id.utf8.dropFirst().allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
