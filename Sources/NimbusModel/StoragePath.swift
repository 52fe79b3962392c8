/// Relative URIs as MPD writes them: `/` separators, `""` the root of the music directory
/// (mounts being its top-level folders).
public enum StoragePath {
    /// The one rule for a relative path from a client or a file: MPD's `uri_safe_local`
    /// (every segment non-empty and neither `.` nor `..`; `...` is a name), with `""` the root.
    public static func isSafe(_ path: String) -> Bool {
        guard !path.isEmpty else { return true }
        return !path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).contains { segment in
            segment.isEmpty || segment.elementsEqual(".".utf8) || segment.elementsEqual("..".utf8)
        }
    }

    /// `directory/name` in a string of exactly that size: `a + "/" + b` leaves the room its
    /// growth doubled to (96 bytes for a 39-byte URI, heaptrack), and every queued library
    /// song keeps one of these.
    public static func join(_ directory: String, _ name: String) -> String {
        guard !directory.isEmpty else { return name }
        var name = name
        return name.withUTF8 { join(directory, $0) }
    }

    /// `join` with the name as UTF-8 bytes (a library song keeps its name so).
    public static func join(_ directory: String, _ name: UnsafeBufferPointer<UInt8>) -> String {
        guard !directory.isEmpty else { return String(decoding: name, as: UTF8.self) }
        var directory = directory
        let directoryCount = directory.utf8.count
        return directory.withUTF8 { head in
            String(unsafeUninitializedCapacity: directoryCount + 1 + name.count) { buffer in
                _ = buffer.initialize(fromContentsOf: head)
                buffer[directoryCount] = 0x2F
                _ = buffer[(directoryCount + 1)...].initialize(fromContentsOf: name)
                return directoryCount + 1 + name.count
            }
        }
    }

    public static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    public static func name(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// The top-level folder a path lies in (`yadisk` of `yadisk/Jazz/1.flac`), a mount's name
    /// when one is mounted there.
    public static func firstSegment(_ path: String) -> String {
        String(path.prefix { $0 != "/" })
    }
}
