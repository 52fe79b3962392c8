import NimbusModel
import NimbusProtocol
import NimbusSupport

/// Where a URI argument points, classified as MPD 0.24's LocateUri does for add, lsinfo and
/// the playlist readers, with its errors: a URL, a local file (local clients only), or a path
/// relative to the music directory, which may not contain empty, `.` or `..` segments.
enum URILocation: Equatable {
    case url(String)
    case file(String)
    case relative(String)

    @CoreActor
    static func locate(_ argument: String, _ call: CommandCall, allowEmpty: Bool) throws -> URILocation {
        var uri = argument
        if uri.lowercased().hasPrefix("file://") {
            uri.removeFirst("file://".count)
            guard uri.hasPrefix("/") else { throw ProtocolError.argument("Malformed file:// URI") }
        }
        if uri.hasPrefix("/") {
            guard call.session.isLocal else {
                throw ProtocolError(.permission, "Access to local files via TCP is not allowed")
            }
            return .file(uri)
        }
        if hasScheme(uri) { return .url(uri) }
        guard (allowEmpty || !uri.isEmpty), StoragePath.isSafe(uri) else { throw ProtocolError.argument("Bad relative path") }
        return .relative(uri)
    }

    /// MPD's uri_has_scheme: letters, digits, `+`, `-` and `.` before `://`.
    static func hasScheme(_ uri: String) -> Bool {
        guard let range = uri.range(of: "://"), range.lowerBound != uri.startIndex else { return false }
        return uri[..<range.lowerBound].unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)
        }
    }
}
