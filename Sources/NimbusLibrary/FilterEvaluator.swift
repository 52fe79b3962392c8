import Foundation
import NimbusModel
import NimbusStorage

public enum LibraryError: Error, Equatable {
    case noSuchDirectory
    case noSuchSong
    case invalidRegex(String)
}

/// A SongFilter prepared for matching many songs: needles folded once, regexes compiled once.
public final class FilterEvaluator {
    private indirect enum Node {
        case tag(TagType?, Matcher, negated: Bool)
        case uri(Matcher, negated: Bool)
        case base(String)
        case modifiedSince(Int64)
        case audioFormat(AudioFormatPattern)
        case not(Node)
        case and([Node])
    }

    private struct Matcher {
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
            case (_, true): return CaseFolding.equals(value, foldedNeedle: needle, needleIsASCII: needleIsASCII)
            case (_, false): return value == needle
            }
        }
    }

    private let root: Node
    public let base: String?

    public init(_ filter: SongFilter) throws(LibraryError) {
        root = try Self.compile(filter)
        base = filter.baseDirectory
    }

    private static func compile(_ filter: SongFilter) throws(LibraryError) -> Node {
        switch filter {
        case .tag(let type, let match, let negated): return .tag(type, try Matcher(match), negated: negated)
        case .uri(let match, let negated): return .uri(try Matcher(match), negated: negated)
        case .base(let directory): return .base(directory)
        case .modifiedSince(let time): return .modifiedSince(time)
        case .audioFormat(let pattern): return .audioFormat(pattern)
        case .not(let inner): return .not(try compile(inner))
        case .and(let filters):
            var nodes: [Node] = []
            for filter in filters { nodes.append(try compile(filter)) }
            return .and(nodes)
        }
    }

    public func matches(_ song: Song) -> Bool {
        Self.matches(root, uri: song.uri, tag: song.tag, modified: song.lastModified, format: song.format)
    }

    public func matches(_ song: LibrarySong, in directory: String) -> Bool {
        Self.matches(
            root, uri: StoragePath.join(directory, song.name), tag: song.tag, modified: song.modified, format: song.format)
    }

    private static func matches(_ node: Node, uri: @autoclosure () -> String, tag: Tag, modified: Int64?, format: AudioFormat?)
        -> Bool
    {
        switch node {
        case .tag(let type, let matcher, let negated):
            return matchesTag(type, matcher, tag) != negated
        case .uri(let matcher, let negated):
            return matcher.matches(uri()) != negated
        case .base(let directory):
            let path = uri()
            return path.hasPrefix(directory) && (path.utf8.count == directory.utf8.count || path.utf8.dropFirst(directory.utf8.count).first == UInt8(ascii: "/"))
        case .modifiedSince(let time):
            return (modified ?? 0) >= time
        case .audioFormat(let pattern):
            return format.map(pattern.matches) ?? false
        case .not(let inner):
            return !matches(inner, uri: uri(), tag: tag, modified: modified, format: format)
        case .and(let nodes):
            let path = uri()
            return nodes.allSatisfy { matches($0, uri: path, tag: tag, modified: modified, format: format) }
        }
    }

    /// MPD's TagSongFilter: any value of the type (any type for nil) matches; a song without
    /// the tag matches an empty value; AlbumArtist falls back to Artist.
    private static func matchesTag(_ type: TagType?, _ matcher: Matcher, _ tag: Tag) -> Bool {
        var visited = false
        for item in tag.items where type == nil || item.type == type {
            visited = true
            if matcher.matches(item.value) { return true }
        }
        guard let type, !visited else { return false }
        if matcher.isEmpty { return true }
        if type == .albumArtist {
            return tag.items.contains { $0.type == .artist && matcher.matches($0.value) }
        }
        return false
    }
}
