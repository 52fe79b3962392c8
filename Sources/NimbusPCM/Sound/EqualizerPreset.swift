import Foundation

/// One band of a preset, as Equalizer APO and AutoEq write it.
public struct EqualizerBand: Equatable, Sendable {
    public enum Kind: String, CaseIterable, Sendable {
        case peaking = "PK"
        case lowShelf = "LSC"
        case highShelf = "HSC"
        case lowPass = "LP"
        case highPass = "HP"
        case notch = "NO"

        /// Equalizer APO's names, with the synonyms REW and older AutoEq files use.
        static func named(_ name: String) -> Kind? {
            switch name.uppercased() {
            case "PK", "PEQ", "MODAL": .peaking
            case "LSC", "LS", "LSQ": .lowShelf
            case "HSC", "HS", "HSQ": .highShelf
            case "LP", "LPQ": .lowPass
            case "HP", "HPQ": .highPass
            case "NO": .notch
            default: nil
            }
        }

        var hasGain: Bool { self == .peaking || self == .lowShelf || self == .highShelf }
    }

    public var kind: Kind
    public var enabled: Bool
    public var frequency: Double
    public var gain: Double
    public var q: Double

    public init(kind: Kind, enabled: Bool = true, frequency: Double, gain: Double = 0, q: Double = 0.7071) {
        self.kind = kind
        self.enabled = enabled
        self.frequency = frequency
        self.gain = gain
        self.q = q
    }
}

/// A named equalizer setting: a preamp and bands. Its text form is Equalizer APO's, which
/// AutoEq publishes for thousands of headphones and REW exports for rooms, so presets move
/// between Nimbus and those tools as files.
public struct EqualizerPreset: Equatable, Sendable {
    public var preamp: Double
    public var bands: [EqualizerBand]

    public init(preamp: Double = 0, bands: [EqualizerBand] = []) {
        self.preamp = preamp
        self.bands = bands
    }

    /// At most this many bands (Volumio's FusionDsp goes to 50; REW exports up to 20).
    public static let maximumBands = 64

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        /// 1-based line number and the line as given.
        public let line: Int
        public let text: String
        public let reason: String
        public var description: String { "line \(line) \"\(text)\": \(reason)" }
    }

    /// Reads preset text, one entry per line. Blank lines and `#` comments are skipped; any
    /// other line must be a `Preamp:` or `Filter:` line Nimbus can play exactly — a command it
    /// does not carry out (`Channel:`, `GraphicEQ:`) is refused rather than silently dropped.
    public static func parse(lines: [String]) throws(ParseError) -> EqualizerPreset {
        var preset = EqualizerPreset()
        var sawPreamp = false
        for (index, raw) in lines.enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            func fail(_ reason: String) -> ParseError { ParseError(line: index + 1, text: raw, reason: reason) }
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let colon = line.firstIndex(of: ":") else { throw fail("expected \"Preamp:\" or \"Filter N:\"") }
            let command = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let words = line[line.index(after: colon)...].split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            if command == "preamp" {
                guard !sawPreamp else { throw fail("a second Preamp line") }
                guard words.count == 2, words[1].lowercased() == "db", let value = number(words[0]), abs(value) <= 60 else {
                    throw fail("expected \"Preamp: GAIN dB\" with GAIN within ±60")
                }
                preset.preamp = value
                sawPreamp = true
            } else if command == "filter" || (command.hasPrefix("filter ") && Int(command.dropFirst(7)) != nil) {
                guard preset.bands.count < maximumBands else { throw fail("more than \(maximumBands) bands") }
                do throws(BandError) {
                    preset.bands.append(try band(words))
                } catch {
                    throw fail(error.reason)
                }
            } else {
                throw fail("\"\(line[..<colon])\" is not a command Nimbus carries out (Preamp and Filter are)")
            }
        }
        return preset
    }

    struct BandError: Error { let reason: String }

    /// `ON PK Fc 105 Hz Gain -3.1 dB Q 0.70`, in any order after the type, `BW Oct N` for Q.
    private static func band(_ words: [String]) throws(BandError) -> EqualizerBand {
        guard words.count >= 2 else { throw BandError(reason: "expected \"ON|OFF TYPE Fc F Hz …\"") }
        let state = words[0].uppercased()
        guard state == "ON" || state == "OFF" else { throw BandError(reason: "expected ON or OFF, not \"\(words[0])\"") }
        guard let kind = EqualizerBand.Kind.named(words[1]) else {
            throw BandError(reason: "unknown filter type \"\(words[1])\" (PK, LSC, HSC, LP, HP or NO)")
        }
        var frequency: Double?
        var gain: Double?
        var q: Double?
        var index = 2
        func value(_ unit: String?) throws(BandError) -> Double {
            guard index + 1 < words.count, let value = number(words[index + 1]) else {
                throw BandError(reason: "\"\(words[index])\" needs a number")
            }
            if let unit {
                guard index + 2 < words.count, words[index + 2].lowercased() == unit.lowercased() else {
                    throw BandError(reason: "\"\(words[index]) \(words[index + 1])\" needs the unit \(unit)")
                }
                index += 3
            } else {
                index += 2
            }
            return value
        }
        while index < words.count {
            switch words[index].lowercased() {
            case "fc": frequency = try value("Hz")
            case "gain": gain = try value("dB")
            case "q": q = try value(nil)
            case "bw":
                guard index + 2 < words.count, words[index + 1].lowercased() == "oct", let octaves = number(words[index + 2]),
                    octaves > 0, octaves <= 10
                else { throw BandError(reason: "expected \"BW Oct N\"") }
                let factor = pow(2, octaves)
                q = factor.squareRoot() / (factor - 1)
                index += 3
            default:
                throw BandError(reason: "unexpected \"\(words[index])\"")
            }
        }
        guard let frequency, frequency >= 1, frequency <= 200_000 else { throw BandError(reason: "Fc between 1 Hz and 200 kHz is required") }
        if kind.hasGain && gain == nil { throw BandError(reason: "a \(kind.rawValue) band needs Gain") }
        if let gain, abs(gain) > 30 { throw BandError(reason: "Gain within ±30 dB") }
        if let q, q < 0.01 || q > 100 { throw BandError(reason: "Q between 0.01 and 100") }
        return EqualizerBand(kind: kind, enabled: state == "ON", frequency: frequency, gain: kind.hasGain ? gain! : 0, q: q ?? 0.7071)
    }

    /// Accepts a decimal comma too: Equalizer APO files written on German or Russian systems have them.
    private static func number(_ text: String) -> Double? {
        guard let value = Double(text.replacingOccurrences(of: ",", with: ".")), value.isFinite else { return nil }
        return value
    }

    /// The preset as Equalizer APO text, one line per entry (what `eqexport` answers).
    public var lines: [String] {
        var result = ["Preamp: \(Self.format(preamp)) dB"]
        for (index, band) in bands.enumerated() {
            var line = "Filter \(index + 1): \(band.enabled ? "ON" : "OFF") \(band.kind.rawValue) Fc \(Self.format(band.frequency)) Hz"
            if band.kind.hasGain { line += " Gain \(Self.format(band.gain)) dB" }
            line += " Q \(Self.format(band.q))"
            result.append(line)
        }
        return result
    }

    /// Shortest text that reads back as the same double.
    public static func format(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int(value)) }
        return "\(value)"
    }
}
