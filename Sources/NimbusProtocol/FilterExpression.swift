import NimbusModel

/// A filter written back as MPD 0.24 writes it (SongFilter::ToExpression after Optimize):
/// the key under which `sticker … filter` stores its stickers, so a sticker set by one client
/// is found by another that spelled the same filter differently.
public enum FilterExpression {
    public static func normalized(_ filter: SongFilter) -> String {
        text(optimized(filter))
    }

    /// Nested ANDs collapse, a one-item AND is its item, and a NOT around a tag or URI
    /// comparison becomes the negated comparison.
    static func optimized(_ filter: SongFilter) -> SongFilter {
        switch filter {
        case .and(let items):
            let flat = items.map(optimized).flatMap { item -> [SongFilter] in
                if case .and(let inner) = item { return inner }
                return [item]
            }
            return flat.count == 1 ? flat[0] : .and(flat)
        case .not(let child):
            switch optimized(child) {
            case .tag(let type, let match, let negated): return .tag(type, match, negated: !negated)
            case .uri(let match, let negated): return .uri(match, negated: !negated)
            case let other: return .not(other)
            }
        default:
            return filter
        }
    }

    static func text(_ filter: SongFilter) -> String {
        switch filter {
        case .tag(let type, let match, let negated):
            return "(\(type?.wireName ?? "any") \(comparison(match, negated)) \"\(escaped(match.value))\")"
        case .uri(let match, let negated):
            return "(file \(comparison(match, negated)) \"\(escaped(match.value))\")"
        case .base(let directory):
            return "(base \"\(escaped(directory))\")"
        case .modifiedSince(let time):
            return "(modified-since \"\(TimeFormat.iso8601(time))\")"
        case .addedSince(let time):
            return "(added-since \"\(TimeFormat.iso8601(time))\")"
        case .priority(let value):
            return "(prio >= \(value))"
        case .audioFormat(let pattern):
            let fields = [
                pattern.sampleRate.map(String.init) ?? "*", pattern.sample?.wireName ?? "*",
                pattern.channels.map(String.init) ?? "*",
            ]
            let exact = pattern.sampleRate != nil && pattern.sample != nil && pattern.channels != nil
            return "(AudioFormat \(exact ? "==" : "=~") \"\(fields.joined(separator: ":"))\")"
        case .not(let child):
            return "(!" + text(child) + ")"
        case .and(let items):
            if items.count == 1 { return text(items[0]) }
            return "(" + items.map(text).joined(separator: " AND ") + ")"
        }
    }

    /// MPD prints the case-blind spelling of every operator: `eq_ci` comes back as `==`.
    private static func comparison(_ match: StringMatch, _ negated: Bool) -> String {
        switch match.kind {
        case .regex: return negated ? "!~" : "=~"
        case .substring: return negated ? "!contains" : "contains"
        case .prefix: return negated ? "!starts_with" : "starts_with"
        case .exact: return negated ? "!=" : "=="
        }
    }

    private static func escaped(_ value: String) -> String {
        var result = ""
        for character in value {
            if character == "\"" || character == "'" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result
    }
}
