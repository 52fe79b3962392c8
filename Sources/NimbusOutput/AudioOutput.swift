import NimbusSupport
import NimbusModel

public typealias OutputError = DomainError<OutputDomain>
public enum OutputDomain {}

/// A sound sink driven by its own output thread. Every method may block (that is the point:
/// a blocking write paces playback), so none of this is ever called from the core loop.
public protocol AudioOutput: AnyObject {
    /// Opens for `format`; returns the format actually used, which the output thread converts to.
    func open(_ format: AudioFormat) throws(OutputError) -> AudioFormat
    /// Plays all of `pcm` (whole frames in the opened format), blocking as long as needed.
    func play(_ pcm: UnsafeRawBufferPointer) throws(OutputError)
    /// Waits until everything written has been heard.
    func drain()
    /// Discards what is buffered but not yet heard (seek, stop, skip).
    func cancel()
    /// Holds playback; false if the device cannot pause (it is then cancelled instead).
    func pause() -> Bool
    func resume()
    func close()
    /// Frames written but not yet heard, for an accurate elapsed time.
    var delayFrames: Int { get }
    /// Called from a control thread (stop, seek, a new song) while `play` may be blocked:
    /// an output whose wait is its own, not the device's, cuts it short.
    func interrupt()
    /// A new song starts in what `play` is given next (stream outputs announce its title).
    func songStarted(title: String?)
}

extension AudioOutput {
    public func interrupt() {}
    public func songStarted(title: String?) {}
}

/// How an output's volume is controlled (`mixer_type`).
public enum MixerKind: String, Sendable {
    case software, hardware, none
}

/// What the core knows about an output from the config file.
public struct OutputConfiguration: Sendable, Equatable {
    public var name: String
    public var type: String
    /// Plugin-specific settings (`device`, `path`, …).
    public var settings: [String: String]
    public var mixer: MixerKind
    /// A fixed output format (`format "48000:16:2"`, `*` keeps that field of the input).
    public var format: AudioFormatPattern?
    public var enabled: Bool

    public init(
        name: String, type: String, settings: [String: String] = [:], mixer: MixerKind = .none,
        format: AudioFormatPattern? = nil, enabled: Bool = true
    ) {
        self.name = name
        self.type = type
        self.settings = settings
        self.mixer = mixer
        self.format = format
        self.enabled = enabled
    }
}
