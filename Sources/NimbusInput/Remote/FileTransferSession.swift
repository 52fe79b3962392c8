import CCurl
import Glibc
import Synchronization

/// One FTP, FTPS or SFTP transfer for libcurl: a listing (`MLSD`, names only, or the
/// server's long listing), a file's size and time, or a range of its bytes (`REST`, an SFTP
/// seek). Credentials go to libcurl apart from the URL, so they are never in an address.
public struct FileTransfer: Sendable {
    public var url: String
    public var user: String?
    public var password: String?
    /// An SSH private key (with its `.pub` beside it, or derived by libssh2).
    public var privateKey: String?
    public var range: Range<Int64>?
    /// A listing command in place of `LIST` (`MLSD`).
    public var command: String?
    /// `NLST` (FTP), names only (SFTP).
    public var namesOnly = false
    /// Size and time only (`SIZE`, `MDTM`; an SFTP stat), no body.
    public var headOnly = false
    /// FTP with `AUTH TLS` before the login (explicit FTPS), the certificate verified.
    public var requireTLS = false
    /// Decides whether an SSH server's host key (its raw public key blob) is the one trusted.
    public var hostKey: HostKeyCheck?
    /// Seconds without a byte before a stalled server is given up on.
    public var stallTimeout = 20

    public init(url: String) { self.url = url }
}

/// The SSH host key decision, called by libcurl during the handshake; remembers the key it saw.
public final class HostKeyCheck: Sendable {
    private let decide: @Sendable ([UInt8]) -> Bool
    private let seenKey = Mutex<[UInt8]?>(nil)

    public init(_ decide: @escaping @Sendable ([UInt8]) -> Bool) { self.decide = decide }

    /// The key the server presented on the last connection (nil: none yet).
    public var seen: [UInt8]? { seenKey.withLock { $0 } }

    /// The decision alone, nothing remembered.
    public func accepts(_ key: [UInt8]) -> Bool { decide(key) }

    fileprivate func check(_ key: [UInt8]) -> Bool {
        seenKey.withLock { $0 = key }
        return decide(key)
    }
}

public struct FileTransferError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable { case unreachable, refused, notFound, hostKey, stalled, cancelled, failed }
    public let kind: Kind
    public let message: String
    /// libcurl's code, for callers telling one failure from another (`MLSD` not understood).
    public let code: Int
    /// The server's last reply code (FTP), 0 when none.
    public var response = 0
    public var description: String { message }
}

public struct FileTransferInfo: Sendable {
    public var size: Int64?
    /// Seconds since 1970.
    public var modified: Int64?
}

/// A libcurl easy handle for file protocols, reused so the FTP control connection or the SSH
/// session stays open between transfers. One thread at a time; `FileTransferPool` hands them out.
public final class FileTransferSession {
    private let handle: OpaquePointer

    public init() {
        _ = HTTPSession.ensureGlobalInit
        handle = OpaquePointer(curl_easy_init())
    }

    deinit { curl_easy_cleanup(UnsafeMutableRawPointer(handle)) }

    @discardableResult
    public func perform(_ transfer: FileTransfer, onData: (UnsafeRawBufferPointer) -> Bool) throws(FileTransferError) -> FileTransferInfo {
        try withoutActuallyEscaping(onData) { (onData) throws(FileTransferError) -> FileTransferInfo in
            try run(transfer, FileTransferContext(onData: onData, hostKey: transfer.hostKey))
        }
    }

    /// The whole answer in memory, refused beyond `limit` bytes.
    public func data(_ transfer: FileTransfer, limit: Int) throws(FileTransferError) -> [UInt8] {
        var bytes: [UInt8] = []
        var tooLarge = false
        do {
            try perform(transfer) { chunk in
                bytes.append(contentsOf: chunk)
                tooLarge = bytes.count > limit
                return !tooLarge
            }
        } catch where tooLarge {
            throw FileTransferError(kind: .failed, message: "the listing is larger than \(limit >> 20) MiB", code: 0)
        }
        return bytes
    }

    private func run(_ transfer: FileTransfer, _ context: FileTransferContext) throws(FileTransferError) -> FileTransferInfo {
        let easy = UnsafeMutableRawPointer(handle)
        curl_easy_reset(easy)
        return try withExtendedLifetime(context) { () throws(FileTransferError) -> FileTransferInfo in
            let opaque = Unmanaged.passUnretained(context).toOpaque()
            ccurl_setopt_str(easy, CURLOPT_URL, transfer.url)
            ccurl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
            ccurl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT, 10)
            ccurl_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, 1)
            ccurl_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, transfer.stallTimeout)
            // libssh2 keeps as many SFTP reads in flight as the buffer holds: libcurl's 16 KiB
            // default gives a third of curl's own throughput (the curl tool asks for 100 KiB).
            ccurl_setopt_long(easy, CURLOPT_BUFFERSIZE, 256 << 10)
            // A path is taken as written, not as a list of folders to change into one by one.
            ccurl_setopt_long(easy, CURLOPT_FTP_FILEMETHOD, Int(CURLFTPMETHOD_SINGLECWD.rawValue))
            if let user = transfer.user { ccurl_setopt_str(easy, CURLOPT_USERNAME, user) }
            if let password = transfer.password { ccurl_setopt_str(easy, CURLOPT_PASSWORD, password) }
            if transfer.url.hasPrefix("sftp://") {
                var methods = 0
                if transfer.password != nil { methods |= ccurl_ssh_auth_password() }
                if let key = transfer.privateKey {
                    ccurl_setopt_str(easy, CURLOPT_SSH_PRIVATE_KEYFILE, key)
                    methods |= ccurl_ssh_auth_publickey()
                }
                ccurl_setopt_long(easy, CURLOPT_SSH_AUTH_TYPES, methods == 0 ? ccurl_ssh_auth_password() : methods)
                ccurl_setopt_ptr(easy, CURLOPT_SSH_HOSTKEYDATA, opaque)
                ccurl_setopt_hostkey_cb(easy, hostKeyCallback)
            }
            if transfer.requireTLS { ccurl_setopt_long(easy, CURLOPT_USE_SSL, Int(CURLUSESSL_ALL.rawValue)) }
            if let command = transfer.command { ccurl_setopt_str(easy, CURLOPT_CUSTOMREQUEST, command) }
            if transfer.namesOnly { ccurl_setopt_long(easy, CURLOPT_DIRLISTONLY, 1) }
            if transfer.headOnly {
                ccurl_setopt_long(easy, CURLOPT_NOBODY, 1)
                ccurl_setopt_long(easy, CURLOPT_FILETIME, 1)
            }
            if let range = transfer.range { ccurl_setopt_str(easy, CURLOPT_RANGE, "\(range.lowerBound)-\(range.upperBound - 1)") }
            ccurl_setopt_ptr(easy, CURLOPT_WRITEDATA, opaque)
            ccurl_setopt_write_cb(easy, CURLOPT_WRITEFUNCTION, fileWriteCallback)
            let code = curl_easy_perform(easy)
            if code != CURLE_OK {
                if context.stopped { throw FileTransferError(kind: .cancelled, message: "transfer stopped", code: Int(code.rawValue)) }
                throw Self.error(code, hostKeyRefused: context.hostKeyRefused, easy: easy)
            }
            var info = FileTransferInfo()
            var size: curl_off_t = -1
            if ccurl_getinfo_offt(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &size) == CURLE_OK, size >= 0 { info.size = Int64(size) }
            var time: curl_off_t = -1
            if ccurl_getinfo_offt(easy, CURLINFO_FILETIME_T, &time) == CURLE_OK, time >= 0 { info.modified = Int64(time) }
            return info
        }
    }

    private static func error(_ code: CURLcode, hostKeyRefused: Bool, easy: UnsafeMutableRawPointer) -> FileTransferError {
        let text = String(cString: curl_easy_strerror(code))
        var response = 0
        ccurl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &response)
        let kind: FileTransferError.Kind
        switch code {
        case _ where hostKeyRefused: kind = .hostKey
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST: kind = .unreachable
        case CURLE_LOGIN_DENIED: kind = .refused
        case CURLE_REMOTE_FILE_NOT_FOUND, CURLE_REMOTE_ACCESS_DENIED, CURLE_FTP_COULDNT_RETR_FILE: kind = .notFound
        case CURLE_OPERATION_TIMEDOUT: kind = .stalled
        case CURLE_SSH where response == 0: kind = .failed
        default: kind = .failed
        }
        var error = FileTransferError(kind: kind, message: response > 0 ? "\(text) (\(response))" : text, code: Int(code.rawValue))
        error.response = response
        return error
    }
}

private final class FileTransferContext {
    let onData: (UnsafeRawBufferPointer) -> Bool
    let hostKey: HostKeyCheck?
    var stopped = false
    var hostKeyRefused = false

    init(onData: @escaping (UnsafeRawBufferPointer) -> Bool, hostKey: HostKeyCheck?) {
        self.onData = onData
        self.hostKey = hostKey
    }
}

private func fileWriteCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    let transfer = Unmanaged<FileTransferContext>.fromOpaque(context!).takeUnretainedValue()
    guard transfer.onData(UnsafeRawBufferPointer(start: data, count: size * count)) else {
        transfer.stopped = true
        return 0
    }
    return size * count
}

/// No check configured is a refusal: a host key is never accepted silently.
private func hostKeyCallback(_ context: UnsafeMutableRawPointer?, _ type: Int32, _ key: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
    let transfer = Unmanaged<FileTransferContext>.fromOpaque(context!).takeUnretainedValue()
    let bytes = key.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
    if let check = transfer.hostKey, check.check(bytes) { return Int32(CURLKHMATCH_OK.rawValue) }
    transfer.hostKeyRefused = true
    return Int32(CURLKHMATCH_MISMATCH.rawValue)
}

/// Idle file-transfer sessions of one server, so a transfer reuses a logged-in connection.
public typealias FileTransferPool = SessionPool<FileTransferSession>

extension SessionPool where Session == FileTransferSession {
    public convenience init(capacity: Int = 4) { self.init(capacity: capacity) { FileTransferSession() } }
}
