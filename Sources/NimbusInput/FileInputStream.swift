import Glibc

/// A local file read with pread, so position bookkeeping stays in Swift and seeking is free.
public final class FileInputStream: InputStream {
    public let uri: String
    public let size: Int64?
    public private(set) var position: Int64 = 0
    public var isSeekable: Bool { true }
    public var mimeType: String? { nil }
    private let fd: Int32

    public init(path: String, uri: String? = nil) throws(InputError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw InputError("Failed to open \"\(path)\": \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw InputError("Not a regular file: \"\(path)\"")
        }
        self.fd = descriptor
        self.uri = uri ?? path
        self.size = Int64(info.st_size)
    }

    deinit { close(fd) }

    public func duplicateFileDescriptor() -> Int32? {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        return copy >= 0 ? copy : nil
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        guard buffer.count > 0 else { return 0 }
        while true {
            let count = pread(fd, buffer.baseAddress, buffer.count, off_t(position))
            if count >= 0 {
                position += Int64(count)
                return count
            }
            if errno != EINTR { throw InputError("Failed to read \"\(uri)\": \(String(cString: strerror(errno)))") }
        }
    }

    public func seek(to offset: Int64) throws(InputError) {
        guard offset >= 0 else { throw InputError("Invalid seek offset \(offset) in \"\(uri)\"") }
        position = offset
    }
}

/// An in-memory stream, for tags embedded in other containers (a WAV `id3 ` chunk) and tests.
public final class MemoryInputStream: InputStream {
    public let uri: String
    private let bytes: [UInt8]
    public private(set) var position: Int64 = 0
    public var size: Int64? { Int64(bytes.count) }
    public var isSeekable: Bool { true }
    public let mimeType: String?

    public init(_ bytes: [UInt8], uri: String = "memory", mimeType: String? = nil) {
        self.bytes = bytes
        self.uri = uri
        self.mimeType = mimeType
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        let available = max(0, bytes.count - Int(position))
        let count = min(available, buffer.count)
        if count > 0 {
            bytes.withUnsafeBytes { source in
                buffer.baseAddress!.copyMemory(from: source.baseAddress! + Int(position), byteCount: count)
            }
        }
        position += Int64(count)
        return count
    }

    public func seek(to offset: Int64) throws(InputError) {
        guard offset >= 0 else { throw InputError("Invalid seek offset \(offset)") }
        position = offset
    }
}
