import NimbusModel

/// An output that is not told which song plays (MPD's `tags "no"`): every call but
/// `songStarted` goes to the output inside.
public final class WithoutTags: AudioOutput {
    private let inner: any AudioOutput

    public init(_ inner: any AudioOutput) { self.inner = inner }

    public func open(_ format: AudioFormat) throws(OutputError) -> AudioFormat { try inner.open(format) }
    public func play(_ pcm: UnsafeRawBufferPointer) throws(OutputError) { try inner.play(pcm) }
    public func drain() { inner.drain() }
    public func cancel() { inner.cancel() }
    public func pause() -> Bool { inner.pause() }
    public func resume() { inner.resume() }
    public func close() { inner.close() }
    public var delayFrames: Int { inner.delayFrames }
    public func interrupt() { inner.interrupt() }
    public func songStarted(title: String?) {}
}
