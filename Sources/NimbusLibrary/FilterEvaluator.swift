import Foundation
import NimbusModel
import NimbusStorage

public enum LibraryError: Error, Equatable {
    case noSuchDirectory
    case noSuchSong
    case invalidRegex(String)
}

/// A SongFilter prepared for matching many songs: needles folded once, regexes compiled once.
///
/// The tree is made of final classes whose fields are read in place, so matching a song costs
/// no copies of filter payloads (an indirect enum retained its boxes on every song).
public final class FilterEvaluator {
    private final class Node {
        enum Kind { case tag, uri, base, modifiedSince, addedSince, priority, audioFormat, not, and }
        let kind: Kind
        var tagType: TagType?
        var matcher: Matcher?
        var negated = false
        var directory = ""
        var time: Int64 = 0
        var pattern: AudioFormatPattern?
        var children: [Node] = []

        init(_ kind: Kind) { self.kind = kind }
    }

    private final class Matcher {
        let match: StringMatch
        let needle: String
        let needleIsASCII: Bool
        let regex: NSRegularExpression?

        init(_ match: StringMatch) throws(LibraryError) {
            self.match = match
            needle = match.foldCase ? CaseFolding.fold(match.value) : match.value
            needleIsASCII = CaseFolding.isASCII(needle)
            if match.kind == .regex {
                do {
                    regex = try NSRegularExpression(pattern: match.value, options: match.foldCase ? [.caseInsensitive] : [])
                } catch {
                    throw .invalidRegex(match.value)
                }
            } else {
                regex = nil
            }
        }

        var isEmpty: Bool { match.value.isEmpty }

        func matches(_ value: String) -> Bool {
            if let regex {
                return regex.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)) != nil
            }
            switch (match.kind, match.foldCase) {
            case (.substring, true): return CaseFolding.contains(value, foldedNeedle: needle, needleIsASCII: needleIsASCII)
            case (.substring, false): return needle.isEmpty || value.contains(needle)
            case (.prefix, true): return CaseFolding.hasPrefix(value, foldedNeedle: needle, needleIsASCII: needleIsASCII)
            case (.prefix, false): return value.utf8.starts(with: needle.utf8)
            case (_, true): return CaseFolding.equals(value, foldedNeedle: needle, needleIsASCII: needleIsASCII)
            case (_, false): return value == needle
            }
        }
    }

    private let root: Node
    public let base: String?
    /// Whether any part reads the URI: a library song keeps its name as bytes, and a filter
    /// on tags alone should not make a `String` of it for every song it looks at.
    private let readsURI: Bool

    public init(_ filter: SongFilter) throws(LibraryError) {
        root = try Self.compile(filter)
        base = filter.baseDirectory
        readsURI = Self.readsURI(root)
        key = String(describing: filter)
    }

    /// The filter spelled out in full, to remember answers by.
    let key: String

    private static func compile(_ filter: SongFilter) throws(LibraryError) -> Node {
        switch filter {
        case .tag(let type, let match, let negated):
            let node = Node(.tag)
            node.tagType = type
            node.matcher = try Matcher(match)
            node.negated = negated
            return node
        case .uri(let match, let negated):
            let node = Node(.uri)
            node.matcher = try Matcher(match)
            node.negated = negated
            return node
        case .base(let directory):
            let node = Node(.base)
            node.directory = directory
            return node
        case .modifiedSince(let time):
            let node = Node(.modifiedSince)
            node.time = time
            return node
        case .addedSince(let time):
            let node = Node(.addedSince)
            node.time = time
            return node
        case .priority(let minimum):
            let node = Node(.priority)
            node.time = Int64(minimum)
            return node
        case .audioFormat(let pattern):
            let node = Node(.audioFormat)
            node.pattern = pattern
            return node
        case .not(let inner):
            let node = Node(.not)
            node.children = [try compile(inner)]
            return node
        case .and(let filters):
            let node = Node(.and)
            for filter in filters { node.children.append(try compile(filter)) }
            return node
        }
    }

    /// `priority`: the queue entry's (0 for a song outside the queue).
    public func matches(_ song: Song, priority: UInt8 = 0) -> Bool {
        Self.matches(
            root, uri: song.uri, directory: nil, tag: song.tag, times: Times(modified: song.lastModified, added: song.added),
            format: song.format, priority: priority)
    }

    public func matches(_ song: LibrarySong, in directory: String) -> Bool {
        Self.matches(
            root, uri: readsURI ? song.name : "", directory: directory, tag: song.tag, times: Times(modified: song.modified, added: song.added),
            format: song.format, priority: 0)
    }

    private static func readsURI(_ node: Node) -> Bool {
        node.kind == .uri || node.kind == .base || node.children.contains(where: readsURI)
    }

    private struct Times {
        let modified: Int64?
        let added: Int64?
    }

    /// `uri` is the full URI when `directory` is nil, else the name within `directory`; the
    /// join happens only for the rare nodes that need it.
    private static func matches(
        _ node: Node, uri: String, directory: String?, tag: borrowing Tag, times: Times, format: AudioFormat?, priority: UInt8
    ) -> Bool {
        switch node.kind {
        case .tag:
            return matchesTag(node.tagType, node.matcher!, tag) != node.negated
        case .uri:
            return node.matcher!.matches(directory.map { StoragePath.join($0, uri) } ?? uri) != node.negated
        case .base:
            let path = directory.map { StoragePath.join($0, uri) } ?? uri
            let base = node.directory
            return base.isEmpty || path.hasPrefix(base)
                && (path.utf8.count == base.utf8.count || path.utf8.dropFirst(base.utf8.count).first == UInt8(ascii: "/"))
        case .modifiedSince:
            return (times.modified ?? 0) >= node.time
        case .addedSince:
            return times.added.map { $0 >= node.time } ?? false
        case .priority:
            return Int64(priority) >= node.time
        case .audioFormat:
            return format.map(node.pattern!.matches) ?? false
        case .not:
            return !matches(
                node.children[0], uri: uri, directory: directory, tag: tag, times: times, format: format, priority: priority)
        case .and:
            for child in node.children
            where !matches(child, uri: uri, directory: directory, tag: tag, times: times, format: format, priority: priority) {
                return false
            }
            return true
        }
    }

    /// MPD's TagSongFilter: any value of the type (any type for nil) matches; a song without
    /// the tag matches an empty value; AlbumArtist falls back to Artist.
    private static func matchesTag(_ type: TagType?, _ matcher: Matcher, _ tag: borrowing Tag) -> Bool {
        tag.items.withUnsafeBufferPointer { items in
            var visited = false
            for index in items.indices where type == nil || items[index].type == type {
                visited = true
                if matcher.matches(items[index].value) { return true }
            }
            guard let type, !visited else { return false }
            if matcher.isEmpty { return true }
            if type == .albumArtist {
                for index in items.indices where items[index].type == .artist && matcher.matches(items[index].value) {
                    return true
                }
            }
            return false
        }
    }
}
