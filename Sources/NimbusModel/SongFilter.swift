/// How a filter compares one string: exact, substring (`contains` and legacy `search`), prefix
/// (`starts_with`) or a regular expression (`=~`), case-folded for `search` and its relatives
/// or as an explicit `_ci` operator asks.
public struct StringMatch: Sendable, Hashable {
    public enum Kind: Sendable, Hashable { case exact, substring, prefix, regex }

    public let value: String
    public let kind: Kind
    public let foldCase: Bool

    public init(_ value: String, kind: Kind, foldCase: Bool) {
        self.value = value
        self.kind = kind
        self.foldCase = foldCase
    }
}

/// `AudioFormat == '44100:16:2'` (every field given) or `=~ '44100:*:2'` (a mask).
public struct AudioFormatPattern: Sendable, Hashable {
    public let sampleRate: UInt32?
    public let sample: SampleFormat?
    public let channels: UInt8?

    public init(sampleRate: UInt32?, sample: SampleFormat?, channels: UInt8?) {
        self.sampleRate = sampleRate
        self.sample = sample
        self.channels = channels
    }

    public func matches(_ format: AudioFormat) -> Bool {
        (sampleRate == nil || sampleRate == format.sampleRate) && (sample == nil || sample == format.sample)
            && (channels == nil || channels == format.channels)
    }
}

/// MPD's filter expression tree (0.21+ syntax with 0.23 semantics) and the legacy
/// `TYPE VALUE` pairs, which parse into the same tree.
public indirect enum SongFilter: Sendable, Hashable {
    /// A tag (nil: any tag) compared with a string; `negated` inverts the whole test, so songs
    /// lacking the tag match `!=`, as in MPD.
    case tag(TagType?, StringMatch, negated: Bool)
    case uri(StringMatch, negated: Bool)
    /// Songs at or below a directory.
    case base(String)
    /// Songs whose file changed at or after this UNIX time.
    case modifiedSince(Int64)
    /// Songs that entered the database at or after this UNIX time (MPD 0.24).
    case addedSince(Int64)
    /// Queue entries of at least this priority (`(prio >= N)`, MPD 0.24); library songs have 0.
    case priority(atLeast: UInt8)
    case audioFormat(AudioFormatPattern)
    case not(SongFilter)
    case and([SongFilter])

    /// The directory a `base` restricts the search to, if the filter has one at its top.
    public var baseDirectory: String? {
        switch self {
        case .base(let directory): return directory
        case .and(let filters): return filters.lazy.compactMap(\.baseDirectory).first
        default: return nil
        }
    }
}
