import Foundation

/// Locale-aware ordering (ICU root collation through Foundation): MPD sorts directories and
/// `sort TAG` results with ICU collation, so "broken" comes before "Various".
enum Collation {
    private static let root = Locale(identifier: "")

    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        compare(lhs, rhs) == .orderedAscending
    }

    static func compare(_ lhs: String, _ rhs: String) -> ComparisonResult {
        if lhs == rhs { return .orderedSame }
        return lhs.compare(rhs, options: [], range: nil, locale: root)
    }

    /// Byte order, for `list` and `count … group`, which MPD keeps in std::map/set order.
    static func bytePrecedes(_ lhs: String, _ rhs: String) -> Bool {
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { a in
            rhs.withUTF8 { b in
                let common = min(a.count, b.count)
                if common > 0 {
                    let order = memcmp(a.baseAddress!, b.baseAddress!, common)
                    if order != 0 { return order < 0 }
                }
                return a.count < b.count
            }
        }
    }
}
