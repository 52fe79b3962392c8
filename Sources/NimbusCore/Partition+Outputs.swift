import NimbusOutput
import NimbusPlayer
import NimbusSupport

/// Outputs and volume, with MPD's MultipleOutputs rules: the volume is the average over the
/// enabled outputs that have a mixer; setting it sets every one of them.
extension Partition {
    public enum OutputFailure: Error, Equatable {
        case noSuchOutput
        case unsupportedAttribute
    }

    /// nil when no enabled output has a working mixer (status omits `volume`).
    public var volume: Int? {
        let levels = outputs.compactMap(\.volume)
        guard !levels.isEmpty else { return nil }
        return levels.reduce(0, +) / levels.count
    }

    public func setVolume(_ level: Int) throws(PlaybackError) {
        let candidates = outputs.filter { $0.hasMixer }
        guard !candidates.isEmpty else { throw .noMixer }
        var failed: OutputRecord?
        for output in candidates where !output.setVolume(level) { failed = output }
        applyVolumes()
        onEvents(.mixer)
        home.stateChanged()
        if let failed { throw .mixerFailed("Failed to set mixer for '\(failed.name)'") }
    }

    /// Every output's software level goes to its output thread.
    func applyVolumes() {
        for output in outputs { engine.setVolume(output.sampleVolume, output: output.id) }
    }

    /// Restores the level saved in the state file (`sw_volume`) on software mixers.
    public func restoreSoftwareVolume(_ level: Int) {
        for output in outputs { output.restoreSoftwareVolume(level) }
        applyVolumes()
    }

    public func output(id: Int) throws(OutputFailure) -> OutputRecord {
        guard let output = outputs.first(where: { $0.id == id }) else { throw .noSuchOutput }
        return output
    }

    /// enableoutput / disableoutput / toggleoutput (nil toggles). As MPD's OutputCommand: an
    /// output with a mixer also raises `mixer` (a toggle only when it switched the output
    /// off); enabling or disabling it again changes nothing and raises nothing.
    public func setOutput(id: Int, enabled: Bool?) throws(OutputFailure) {
        let output = try output(id: id)
        let wanted = enabled ?? !output.enabled
        guard wanted != output.enabled || enabled == nil else { return }
        output.enabled = wanted
        if state != .stop {
            engine.setOutputs(activeOutputSlots)
            applyVolumes()
        }
        onEvents(output.hasMixer && (enabled != nil || !wanted) ? [.output, .mixer] : .output)
        home.stateChanged()
    }

    public func setOutputAttribute(id: Int, name: String, value: String) throws(OutputFailure) {
        let output = try output(id: id)
        guard output.setAttribute(name, value) else { throw .unsupportedAttribute }
        onEvents(.output)
        home.stateChanged()
    }

    /// The enabled outputs that have not failed, as the engine wants them (the first keeps time).
    var activeOutputSlots: [PlayerEngine.OutputSlot] {
        outputs.filter { $0.enabled && !$0.isPlaceholder && !failedOutputs.contains($0.name) }.map(\.slot)
    }

    /// Takes `output` out of this partition, leaving MPD's placeholder in its place.
    public func release(_ output: OutputRecord) {
        guard let index = outputs.firstIndex(where: { $0 === output }) else { return }
        outputs[index] = OutputRecord.placeholder(for: output)
        outputsChanged()
    }

    /// Adds `output`, in the place of its placeholder if this partition had it before.
    public func adopt(_ output: OutputRecord) {
        if let index = outputs.firstIndex(where: { $0.isPlaceholder && $0.name == output.name }) {
            output.id = index
            outputs[index] = output
        } else {
            output.id = outputs.count
            outputs.append(output)
        }
        outputsChanged()
    }

    /// Real outputs (placeholders do not count), for `delpartition`.
    public var hasOutputs: Bool { outputs.contains { !$0.isPlaceholder } }

    /// Whoever moves an output raises `output` for every partition (MPD's moveoutput).
    private func outputsChanged() {
        if state != .stop {
            engine.setOutputs(activeOutputSlots)
            applyVolumes()
        }
        home.stateChanged()
    }
}
