/// Sorted, merged, half-open byte ranges: what a cache entry holds on disk.
public struct RangeSet: Sendable, Equatable {
    public private(set) var ranges: [Range<Int64>] = []

    public init(_ ranges: [Range<Int64>] = []) {
        for range in ranges { insert(range) }
    }

    public var isEmpty: Bool { ranges.isEmpty }
    public var byteCount: Int64 { ranges.reduce(0) { $0 + Int64($1.count) } }

    public mutating func insert(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        var merged = range
        var result: [Range<Int64>] = []
        result.reserveCapacity(ranges.count + 1)
        var inserted = false
        for existing in ranges {
            if existing.upperBound < merged.lowerBound {
                result.append(existing)
            } else if existing.lowerBound > merged.upperBound {
                if !inserted {
                    result.append(merged)
                    inserted = true
                }
                result.append(existing)
            } else {
                merged = min(existing.lowerBound, merged.lowerBound)..<max(existing.upperBound, merged.upperBound)
            }
        }
        if !inserted { result.append(merged) }
        ranges = result
    }

    /// The covered run starting at `offset`, if `offset` is covered.
    public func run(containing offset: Int64) -> Range<Int64>? {
        var low = 0
        var high = ranges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let range = ranges[middle]
            if range.upperBound <= offset {
                low = middle + 1
            } else if range.lowerBound > offset {
                high = middle - 1
            } else {
                return range
            }
        }
        return nil
    }

    public func contains(_ range: Range<Int64>) -> Bool {
        guard !range.isEmpty else { return true }
        return run(containing: range.lowerBound).map { $0.upperBound >= range.upperBound } ?? false
    }

    /// The first covered byte at or after `offset` (where a fetch starting at `offset` can stop).
    public func nextCovered(after offset: Int64) -> Int64? {
        ranges.first { $0.upperBound > offset }.map { max($0.lowerBound, offset) }
    }

    /// The parts of `range` not covered.
    public func gaps(in range: Range<Int64>) -> [Range<Int64>] {
        var gaps: [Range<Int64>] = []
        var cursor = range.lowerBound
        for existing in ranges where existing.upperBound > cursor && existing.lowerBound < range.upperBound {
            if existing.lowerBound > cursor { gaps.append(cursor..<existing.lowerBound) }
            cursor = max(cursor, existing.upperBound)
        }
        if cursor < range.upperBound { gaps.append(cursor..<range.upperBound) }
        return gaps
    }
}
