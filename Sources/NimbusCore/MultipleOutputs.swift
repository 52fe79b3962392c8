import NimbusOutput
import NimbusPlayer
import NimbusSupport

/// A partition's audio outputs and their volume, with the rules of MPD's MultipleOutputs:
/// the volume is the average over the enabled outputs that have a mixer, setting it sets
/// every one of them; an output whose device failed is left out until playback starts again
/// from a stop, while the others play on.
@CoreActor
public final class MultipleOutputs {
    public enum Failure: Error, Equatable {
        case noSuchOutput
        case unsupportedAttribute
    }

    /// In `outputid` order; an output moved to another partition leaves a placeholder.
    public internal(set) var all: [OutputRecord] = []
    /// Outputs whose device failed since playback started.
    private var failed: Set<String> = []
    private unowned let partition: Partition
    private var engine: PlayerEngine { partition.engine }

    init(partition: Partition) { self.partition = partition }

    // MARK: volume

    /// nil when no enabled output has a working mixer (status omits `volume`).
    public var volume: Int? {
        let levels = all.compactMap(\.volume)
        guard !levels.isEmpty else { return nil }
        return levels.reduce(0, +) / levels.count
    }

    public func setVolume(_ level: Int) throws(PlaybackError) {
        let candidates = all.filter { $0.hasMixer }
        guard !candidates.isEmpty else { throw .noMixer }
        var failedOutput: OutputRecord?
        for output in candidates where !output.setVolume(level) { failedOutput = output }
        applyVolumes()
        partition.onEvents(.mixer)
        partition.home.stateChanged()
        if let failedOutput { throw .mixerFailed("Failed to set mixer for '\(failedOutput.name)'") }
    }

    /// The sleep timer's fade: every output's sample level times this (1 = as set). The
    /// mixers, and the volume clients see, do not move.
    private(set) var fade = 1.0

    func setFade(_ factor: Double) {
        fade = min(1, max(0, factor))
        applyVolumes()
    }

    /// Every output's software level (faded, while the sleep timer fades) goes to its output thread.
    func applyVolumes() {
        for output in all { engine.setVolume(Int((Double(output.sampleVolume) * fade).rounded()), output: output.id) }
    }

    /// Restores the level saved in the state file (`sw_volume`) on software mixers.
    public func restoreSoftwareVolume(_ level: Int) {
        for output in all { output.restoreSoftwareVolume(level) }
        applyVolumes()
    }

    // MARK: enabling and attributes

    public func output(id: Int) throws(Failure) -> OutputRecord {
        guard let output = all.first(where: { $0.id == id }) else { throw .noSuchOutput }
        return output
    }

    /// enableoutput / disableoutput / toggleoutput (nil toggles). As MPD's OutputCommand: an
    /// output with a mixer also raises `mixer` (a toggle only when it switched the output
    /// off); enabling or disabling it again changes nothing and raises nothing.
    public func setEnabled(id: Int, _ enabled: Bool?) throws(Failure) {
        let output = try output(id: id)
        let wanted = enabled ?? !output.enabled
        guard wanted != output.enabled || enabled == nil else { return }
        output.enabled = wanted
        if partition.state != .stop { hand() }
        partition.onEvents(output.hasMixer && (enabled != nil || !wanted) ? [.output, .mixer] : .output)
        partition.home.stateChanged()
    }

    public func setAttribute(id: Int, name: String, value: String) throws(Failure) {
        let output = try output(id: id)
        guard output.setAttribute(name, value) else { throw .unsupportedAttribute }
        partition.onEvents(.output)
        partition.home.stateChanged()
    }

    // MARK: the engine's view

    /// The enabled outputs that have not failed, as the engine wants them (the first keeps time).
    /// MPD's `always_off "yes"`: listed, enabled or not, but never played on.
    var activeSlots: [PlayerEngine.OutputSlot] {
        all.filter {
            $0.enabled && !$0.isPlaceholder && !failed.contains($0.name) && !$0.configuration.flag("always_off", default: false)
        }.map(\.slot)
    }

    /// Gives the engine the outputs to play through and their levels. `fromStop`: playback
    /// starts again, so outputs that failed are tried again (as MPD does).
    func hand(fromStop: Bool = false) {
        if fromStop { failed.removeAll() }
        engine.setOutputs(activeSlots)
        applyVolumes()
    }

    /// An output's device failed: it is left out; nil when it was already (or is unknown).
    func noteFailure(of name: String) -> OutputRecord? {
        guard let output = all.first(where: { $0.name == name }), !failed.contains(name) else { return nil }
        failed.insert(name)
        return output
    }

    // MARK: moving between partitions

    /// Takes `output` out of this partition, leaving MPD's placeholder in its place.
    public func release(_ output: OutputRecord) {
        guard let index = all.firstIndex(where: { $0 === output }) else { return }
        all[index] = OutputRecord.placeholder(for: output)
        moved()
    }

    /// Adds `output`, in the place of its placeholder if this partition had it before.
    public func adopt(_ output: OutputRecord) {
        if let index = all.firstIndex(where: { $0.isPlaceholder && $0.name == output.name }) {
            output.id = index
            all[index] = output
        } else {
            output.id = all.count
            all.append(output)
        }
        moved()
    }

    /// Real outputs (placeholders do not count), for `delpartition`.
    public var hasRealOutputs: Bool { all.contains { !$0.isPlaceholder } }

    /// Whoever moves an output raises `output` for every partition (MPD's moveoutput).
    private func moved() {
        if partition.state != .stop { hand() }
        partition.home.stateChanged()
    }

    /// The outputs the daemon configured (at start, before anything plays).
    public func install(_ outputs: [OutputRecord]) { all = outputs }
}
