import Glibc
import NimbusInput

/// Bridges an InputStream to C libraries' read/seek/tell callbacks. The libraries hold an
/// unretained pointer to this box for the duration of one call sequence, and any error is
/// stored here and rethrown after the C call returns.
final class StreamContext {
    let stream: any InputStream
    var failure: InputError?
    /// The first failure of this stream, kept even after a read that worked: a one-shot C
    /// call (a FLAC metadata chain, a demuxer opening) that stopped on it then reports what
    /// happened instead of its own "read error" status.
    private(set) var firstFailure: InputError?

    init(_ stream: any InputStream) { self.stream = stream }

    var pointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> StreamContext {
        Unmanaged<StreamContext>.fromOpaque(pointer!).takeUnretainedValue()
    }

    func read(_ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        guard let buffer, count > 0 else { return 0 }
        do {
            let got = try stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: count))
            // A retry that worked: an earlier failure no longer describes the stream.
            failure = nil
            return got
        } catch {
            failure = error
            if firstFailure == nil { firstFailure = error }
            return -1
        }
    }

    /// fread semantics, which libFLAC's metadata reader relies on: keeps reading until `count`
    /// bytes or the end (a cached remote stream hands out a block at a time, and a short read
    /// inside a large PICTURE block would otherwise be taken for a broken file).
    func readFully(_ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        guard let buffer, count > 0 else { return 0 }
        var filled = 0
        while filled < count {
            let got = read(buffer + filled, count - filled)
            if got < 0 { return filled > 0 ? filled : -1 }
            if got == 0 { break }
            filled += got
        }
        return filled
    }

    /// lseek semantics: the new offset, or -1.
    func seek(_ offset: Int64, _ whence: Int32) -> Int64 {
        let target: Int64
        switch whence {
        case SEEK_SET: target = offset
        case SEEK_CUR: target = stream.position + offset
        case SEEK_END:
            guard let size = stream.size else { return -1 }
            target = size + offset
        default: return -1
        }
        guard target >= 0 else { return -1 }
        do {
            try stream.seek(to: target)
            return target
        } catch {
            failure = error
            return -1
        }
    }

    var atEnd: Bool {
        guard let size = stream.size else { return false }
        return stream.position >= size
    }
}
