import Foundation
import NimbusOutput
import NimbusPCM
import NimbusSupport

/// Equalizer presets and what each output's sound chain does. Presets are Equalizer APO text
/// files in a `presets` folder beside the state file — the form AutoEq and REW write, so a
/// user can also drop a file there or copy one out; each output's choice (preset, bypass,
/// balance, crossfeed) is kept by output name in `STATE.sound`. Both written atomically;
/// a change applies at once to the output's chain wherever the output is (any partition).
@CoreActor
public final class SoundLibrary {
    public enum Failure: Error, Equatable {
        case badName(String)
        case noSuchPreset(String)
        case noSuchOutput(String)
        case badPreset(EqualizerPreset.ParseError)
        case notSaved(String)
    }

    /// One output's choices, as saved.
    public struct Choice: Codable, Equatable, Sendable {
        public var preset: String?
        public var bypass = false
        public var balance = 0.0
        public var crossfeed: String?

        public init() {}
    }

    public let presetsDirectory: String
    private let choicesFile: String
    private let logger: Logger
    private let partitions: PartitionSet
    public private(set) var presets: [String: EqualizerPreset] = [:]
    public private(set) var choices: [String: Choice] = [:]

    public init(presetsDirectory: String, choicesFile: String, partitions: PartitionSet, logger: Logger) {
        self.presetsDirectory = presetsDirectory
        self.choicesFile = choicesFile
        self.partitions = partitions
        self.logger = logger
        load()
        applyAll()
    }

    public var presetNames: [String] { presets.keys.sorted() }

    /// Every real output of every partition (outputs move between partitions; the record and
    /// its chain move with them).
    public var outputs: [OutputRecord] { partitions.all.flatMap(\.outputs.all).filter { !$0.isPlaceholder } }

    public func output(named name: String) throws(Failure) -> OutputRecord {
        guard let output = outputs.first(where: { $0.name == name }) else { throw .noSuchOutput(name) }
        return output
    }

    /// Creates or replaces a preset from its text; the old one stays if the text is refused.
    /// Returns whether an output uses it (its sound changes).
    @discardableResult
    public func importPreset(_ name: String, lines: [String]) throws(Failure) -> Bool {
        try Self.check(name)
        let preset: EqualizerPreset
        do throws(EqualizerPreset.ParseError) { preset = try EqualizerPreset.parse(lines: lines) } catch { throw .badPreset(error) }
        let text = preset.lines.joined(separator: "\n") + "\n"
        do {
            try FileManager.default.createDirectory(atPath: presetsDirectory, withIntermediateDirectories: true)
            try AtomicFile.write(Array(text.utf8), to: path(of: name))
        } catch {
            throw .notSaved("\(error)")
        }
        presets[name] = preset
        return applyUsers(of: name)
    }

    public func export(_ name: String) throws(Failure) -> [String] {
        guard let preset = presets[name] else { throw .noSuchPreset(name) }
        return preset.lines
    }

    /// Removes a preset; outputs that used it go back to no equalizer. Returns whether any did.
    @discardableResult
    public func delete(_ name: String) throws(Failure) -> Bool {
        guard presets[name] != nil else { throw .noSuchPreset(name) }
        guard unlink(path(of: name)) == 0 || errno == ENOENT else { throw .notSaved(String(cString: strerror(errno))) }
        presets[name] = nil
        var used = false
        for (output, choice) in choices where choice.preset == name {
            choices[output]?.preset = nil
            used = true
        }
        if used { try saveChoices() }
        applyAll()
        return used
    }

    /// Changes one output's choice (`change` edits it in place) and applies it.
    public func change(output name: String, _ change: (inout Choice) throws(Failure) -> Void) throws(Failure) {
        let output = try output(named: name)
        var choice = choices[name] ?? Choice()
        try change(&choice)
        if let preset = choice.preset, presets[preset] == nil { throw .noSuchPreset(preset) }
        let before = choices[name]
        choices[name] = choice == Choice() ? nil : choice
        do throws(Failure) { try saveChoices() } catch {
            choices[name] = before
            throw error
        }
        apply(to: output)
    }

    public func settings(of output: OutputRecord) -> SoundSettings {
        guard let choice = choices[output.name] else { return .neutral }
        return SoundSettings(
            presetName: choice.preset, equalizer: choice.preset.flatMap { presets[$0] }, bypass: choice.bypass,
            balance: choice.balance, crossfeed: choice.crossfeed.flatMap(Crossfeed.Level.init(rawValue:)))
    }

    // MARK: files

    /// Preset names are what clients show: any printable text up to 64 characters that can be
    /// one file name (no `/`, not `.` or `..`).
    static func check(_ name: String) throws(Failure) {
        guard !name.isEmpty, name.count <= 64, name != ".", name != "..", !name.contains("/"), !name.hasPrefix("."),
            name.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
        else { throw .badName(name) }
    }

    private func path(of name: String) -> String { presetsDirectory + "/" + name + ".txt" }

    private func load() {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: presetsDirectory)) ?? []
        for file in files where file.hasSuffix(".txt") {
            let name = String(file.dropLast(4))
            guard (try? Self.check(name)) != nil,
                let text = try? String(contentsOfFile: presetsDirectory + "/" + file, encoding: .utf8)
            else { continue }
            do throws(EqualizerPreset.ParseError) {
                presets[name] = try EqualizerPreset.parse(lines: text.components(separatedBy: "\n"))
            } catch {
                logger.warning("equalizer preset \"\(name)\": \(error); not loaded")
            }
        }
        guard let data = FileManager.default.contents(atPath: choicesFile) else { return }
        if let saved = try? JSONDecoder().decode([String: Choice].self, from: data) {
            choices = saved
        } else {
            logger.warning("\(choicesFile): not readable; outputs start without equalizer")
        }
    }

    private func saveChoices() throws(Failure) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            try AtomicFile.write(Array(try encoder.encode(choices)), to: choicesFile)
        } catch {
            throw .notSaved("\(error)")
        }
    }

    private func applyUsers(of preset: String) -> Bool {
        var used = false
        for output in outputs where choices[output.name]?.preset == preset {
            apply(to: output)
            used = true
        }
        return used
    }

    /// Gives every output its chain settings (at start, and after an output appears).
    public func applyAll() { for output in outputs { apply(to: output) } }

    private func apply(to output: OutputRecord) { output.sound.update(settings(of: output)) }
}
