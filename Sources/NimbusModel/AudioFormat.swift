/// Sample layout as MPD names it in `Format:` and `audio:` (`16`, `24`, `f`, …).
public enum SampleFormat: UInt8, Sendable, Hashable {
    case s8, s16, s24, s32, float, dsd

    public var wireName: String {
        switch self {
        case .s8: return "8"
        case .s16: return "16"
        case .s24: return "24"
        case .s32: return "32"
        case .float: return "f"
        case .dsd: return "dsd"
        }
    }

    /// Bytes per sample in memory (24-bit samples live in 32-bit words, MPD's S24_P32).
    public var bytes: Int {
        switch self {
        case .s8, .dsd: return 1
        case .s16: return 2
        case .s24, .s32, .float: return 4
        }
    }
}

/// Rate, sample format and channel count of a stream: `44100:16:2`.
public struct AudioFormat: Sendable, Hashable, CustomStringConvertible {
    public var sampleRate: UInt32
    public var sample: SampleFormat
    public var channels: UInt8

    public init(sampleRate: UInt32, sample: SampleFormat, channels: UInt8) {
        self.sampleRate = sampleRate
        self.sample = sample
        self.channels = channels
    }

    public var frameBytes: Int { sample.bytes * Int(channels) }

    /// The frame `milliseconds` in at this rate (rounded down, as MPD's SongTime::ToScale).
    public func frames(milliseconds: Int) -> Int64 { Int64(milliseconds) * Int64(sampleRate) / 1000 }

    public var description: String {
        if sample == .dsd { return "dsd\(sampleRate * 8 / 44100):\(channels)" }
        return "\(sampleRate):\(sample.wireName):\(channels)"
    }

    /// Parses `44100:16:2`, or a mask with `*` for any field when `mask` is true (`44100:*:2`).
    public static func parse(_ text: String) -> (rate: UInt32?, sample: SampleFormat?, channels: UInt8?)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let rate = parts[0] == "*" ? nil : UInt32(parts[0])
        let sample: SampleFormat?
        switch parts[1] {
        case "*": sample = nil
        case "8": sample = .s8
        case "16": sample = .s16
        case "24": sample = .s24
        case "32": sample = .s32
        case "f": sample = .float
        case "dsd": sample = .dsd
        default: return nil
        }
        let channels = parts[2] == "*" ? nil : UInt8(parts[2])
        if parts[0] != "*" && rate == nil { return nil }
        if parts[2] != "*" && channels == nil { return nil }
        return (rate, sample, channels)
    }
}
