/// Every tag MPD 0.24 knows, in MPD's order (which is the order `tagtypes` prints).
public enum TagType: UInt8, CaseIterable, Sendable, Hashable, Comparable {
    case artist, artistSort, album, albumSort, albumArtist, albumArtistSort, title, titleSort, track, name
    case genre, mood, date, originalDate, composer, composerSort, performer, conductor, work
    case movement, movementNumber, showMovement, ensemble, location, grouping, comment, disc, label
    case musicBrainzArtistID, musicBrainzAlbumID, musicBrainzAlbumArtistID, musicBrainzTrackID
    case musicBrainzReleaseTrackID, musicBrainzWorkID, musicBrainzReleaseGroupID

    public static func < (lhs: TagType, rhs: TagType) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The canonical spelling on the wire.
    public var wireName: String { String(describing: Self.wireNames[Int(rawValue)]) }

    /// The spelling as a literal, for writing responses without copying.
    public var staticWireName: StaticString { Self.wireNames[Int(rawValue)] }

    private static let wireNames: [StaticString] = [
        "Artist", "ArtistSort", "Album", "AlbumSort", "AlbumArtist", "AlbumArtistSort", "Title", "TitleSort", "Track",
        "Name", "Genre", "Mood", "Date", "OriginalDate", "Composer", "ComposerSort", "Performer", "Conductor", "Work",
        "Movement", "MovementNumber", "ShowMovement", "Ensemble", "Location", "Grouping", "Comment", "Disc", "Label",
        "MUSICBRAINZ_ARTISTID", "MUSICBRAINZ_ALBUMID", "MUSICBRAINZ_ALBUMARTISTID", "MUSICBRAINZ_TRACKID",
        "MUSICBRAINZ_RELEASETRACKID", "MUSICBRAINZ_WORKID", "MUSICBRAINZ_RELEASEGROUPID",
    ]

    /// The tags MPD 0.23 knew, in its order: how version 1 database files number them.
    public static let mpd023Order: [TagType] = [
        .artist, .artistSort, .album, .albumSort, .albumArtist, .albumArtistSort, .title, .track, .name, .genre, .date,
        .originalDate, .composer, .composerSort, .performer, .conductor, .work, .movement, .movementNumber, .ensemble,
        .location, .grouping, .comment, .disc, .label, .musicBrainzArtistID, .musicBrainzAlbumID,
        .musicBrainzAlbumArtistID, .musicBrainzTrackID, .musicBrainzReleaseTrackID, .musicBrainzWorkID,
    ]

    /// Tags new in MPD 0.24 (the differential tests against 0.23 leave them out).
    public static let newIn024: Set<TagType> = [.titleSort, .mood, .showMovement, .musicBrainzReleaseGroupID]

    private static let byLowercasedName: [String: TagType] = Dictionary(
        uniqueKeysWithValues: allCases.map { ($0.wireName.lowercased(), $0) })

    /// Parses a tag name case-insensitively, as MPD does for every protocol argument naming a tag.
    public init?(name: String) {
        guard let tag = Self.byLowercasedName[name.lowercased()] else { return nil }
        self = tag
    }

    /// Tags MPD consults, in order, when a song lacks this one (src/tag/Fallback.hxx):
    /// AlbumArtistSort → AlbumArtist → ArtistSort → Artist; AlbumArtist, ArtistSort → Artist;
    /// AlbumSort → Album; TitleSort → Title; ComposerSort → Composer.
    public var fallbacks: [TagType] { Self.fallbackTable[Int(rawValue)] }

    private static let fallbackTable: [[TagType]] = allCases.map { type in
        switch type {
        case .albumArtistSort: return [.albumArtist, .artistSort, .artist]
        case .albumArtist, .artistSort: return [.artist]
        case .albumSort: return [.album]
        case .titleSort: return [.title]
        case .composerSort: return [.composer]
        default: return []
        }
    }
}

/// A set of tag types, e.g. a connection's `tagtypes` mask or the server's enabled tags.
public struct TagMask: Equatable, Sendable {
    public private(set) var bits: UInt64

    public init(bits: UInt64) { self.bits = bits }
    public init<S: Sequence>(_ tags: S) where S.Element == TagType {
        bits = tags.reduce(0) { $0 | (1 << UInt64($1.rawValue)) }
    }

    public static let all = TagMask(TagType.allCases)
    public static let none = TagMask(bits: 0)
    /// MPD's default `metadata_to_use`: every tag except Comment.
    public static let defaultEnabled = TagMask(TagType.allCases.filter { $0 != .comment })

    /// `metadata_to_use` as MPD 0.24 reads it (src/tag/Config.cxx): `none`; a list of names,
    /// which replaces the default; or `+name`/`-name` items, which change it (`+comment`).
    /// Unknown names are returned (MPD refuses to start on them; Nimbus warns).
    public static func parsing(metadataToUse value: String) -> (mask: TagMask, unknown: [String]) {
        func trim(_ text: Substring) -> String { String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()) }
        let trimmed = trim(value[...])
        if trimmed.lowercased() == "none" { return (.none, []) }
        var mask = trimmed.hasPrefix("+") || trimmed.hasPrefix("-") ? defaultEnabled : .none
        var adding = true, unknown: [String] = []
        for item in trimmed.split(separator: ",") {
            var name = trim(item)
            if name.hasPrefix("+") {
                adding = true
                name.removeFirst()
            } else if name.hasPrefix("-") {
                adding = false
                name.removeFirst()
            }
            guard let tag = TagType(name: name) else {
                unknown.append(name)
                continue
            }
            if adding { mask.insert(tag) } else { mask.remove(tag) }
        }
        return (mask, unknown)
    }

    public func contains(_ tag: TagType) -> Bool { bits & (1 << UInt64(tag.rawValue)) != 0 }
    public mutating func insert(_ tag: TagType) { bits |= 1 << UInt64(tag.rawValue) }
    public mutating func remove(_ tag: TagType) { bits &= ~(1 << UInt64(tag.rawValue)) }
    public func intersection(_ other: TagMask) -> TagMask { TagMask(bits: bits & other.bits) }
    public func union(_ other: TagMask) -> TagMask { TagMask(bits: bits | other.bits) }
    public func subtracting(_ other: TagMask) -> TagMask { TagMask(bits: bits & ~other.bits) }
    public var tags: [TagType] { TagType.allCases.filter(contains) }
}
