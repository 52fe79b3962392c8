import Glibc
import NimbusModel

/// Raw PCM into a named pipe, e.g. for snapserver's `pipe://` source (multi-room). As in
/// MPD: the FIFO is created if missing and also opened for reading by us, so writes never fail
/// while no reader is attached; writing is paced at real time by a clock, and when a reader is
/// too slow (or absent) the stale data in the pipe is discarded rather than stalling playback.
///
/// The FIFO is never deleted, and once opened it stays open for writing until the daemon
/// exits, as MPD keeps it: a reader such as snapserver (`pipe://…?mode=read`) then never sees
/// the end of the stream when playback stops, and never loses the file it reads.
public final class FifoOutput: AudioOutput {
    private let path: String
    private var writer: Int32 = -1
    private var keeper: Int32 = -1
    private let clock = NullOutput(paced: true)

    public init(path: String) { self.path = path }

    deinit {
        if writer >= 0 { Glibc.close(writer) }
        if keeper >= 0 { Glibc.close(keeper) }
    }

    public func open(_ format: AudioFormat) throws(OutputError) -> AudioFormat {
        if writer < 0 { try openFifo() }
        return try clock.open(format)
    }

    private func openFifo() throws(OutputError) {
        var info = stat()
        if lstat(path, &info) != 0 {
            guard mkfifo(path, 0o666) == 0 else { throw OutputError("Failed to create FIFO \"\(path)\": \(String(cString: strerror(errno)))") }
        } else if (info.st_mode & S_IFMT) != S_IFIFO {
            throw OutputError("\"\(path)\" exists and is not a FIFO")
        }
        if keeper < 0 { keeper = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        writer = Glibc.open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard writer >= 0 else {
            throw OutputError("Failed to open FIFO \"\(path)\": \(String(cString: strerror(errno)))")
        }
    }

    public func play(_ pcm: UnsafeRawBufferPointer) throws(OutputError) {
        try clock.play(pcm)
        var offset = 0
        while offset < pcm.count {
            let written = write(writer, pcm.baseAddress! + offset, pcm.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    cancel()
                    continue
                }
                throw OutputError("Failed to write to FIFO \"\(path)\": \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    public func drain() {}

    /// Empties what no reader has taken yet, so a seek is heard at once.
    public func cancel() {
        // The clock forgets the dropped audio too, or the next song's first chunk would wait
        // for it to "finish playing".
        clock.cancel()
        guard keeper >= 0 else { return }
        var scratch = [UInt8](repeating: 0, count: 16384)
        while scratch.withUnsafeMutableBytes({ read(keeper, $0.baseAddress!, $0.count) }) > 0 {}
    }

    public func pause() -> Bool { true }
    public func resume() {}

    /// Playback stopped: the FIFO stays open (see the type's comment), and what a reader has
    /// not read yet stays in it, so the end of the last song is heard.
    public func close() {
        clock.close()
    }

    public var delayFrames: Int { clock.delayFrames }
    public func interrupt() { clock.interrupt() }
}

/// `type "fifo"`: raw PCM into `path`, by default in the format snapserver expects.
public struct FifoOutputPlugin: OutputPlugin {
    public let type = "fifo"
    public init() {}

    public func configure(_ configuration: OutputConfiguration) throws(OutputError) -> OutputDefinition {
        guard let path = configuration.settings["path"] else {
            throw OutputError("fifo output \"\(configuration.name)\" without \"path\"")
        }
        return OutputDefinition(defaultFormat: AudioFormatPattern(sampleRate: 48000, sample: .s16, channels: 2)) {
            FifoOutput(path: path)
        }
    }
}
