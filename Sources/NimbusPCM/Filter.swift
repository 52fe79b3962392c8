import NimbusModel

/// What a filter stage sees: interleaved float samples at a rate and a channel count.
public struct FloatFormat: Equatable, Sendable {
    public var sampleRate: UInt32
    public var channels: Int

    public init(sampleRate: UInt32, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
    }

    public init(_ format: AudioFormat) { self.init(sampleRate: format.sampleRate, channels: Int(format.channels)) }
}

/// One stage of an output's sound path, as MPD's `Filter` (`src/filter/Filter.hxx`): opened
/// for a format (saying what it gives out), then fed chunk after chunk on the output thread,
/// flushed at the end of a stream and reset at a seek. Stages work on floats: the
/// `FilterChain` converts the song's samples to floats once, runs its stages and converts
/// once to what the device takes. A stage must not allocate or lock in `filter` after
/// `open`: it runs on the output thread, which keeps real time.
public protocol Filter: AnyObject {
    /// Prepares for samples in `format`; returns the format of what it gives out.
    func open(_ format: FloatFormat) -> FloatFormat
    /// Filters `samples` (in place, or into a buffer of its own); the result stays valid
    /// until the next call.
    func filter(_ samples: UnsafeMutableBufferPointer<Float>) -> UnsafeMutableBufferPointer<Float>
    /// What the stage still holds at the end of a stream (empty for most).
    func flush() -> UnsafeMutableBufferPointer<Float>
    /// Forgets what it holds (a seek, a new stream).
    func reset()
    /// False while the stage would leave every sample as it is: the chain then skips it, and
    /// a chain of inactive stages at full volume passes the song's bytes through untouched.
    var isActive: Bool { get }
}

extension Filter {
    public func flush() -> UnsafeMutableBufferPointer<Float> { UnsafeMutableBufferPointer(start: nil, count: 0) }
    public func reset() {}
    public var isActive: Bool { true }
}
