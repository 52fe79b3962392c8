import Foundation
import NimbusInput
import Synchronization

/// What the SFTP and FTP providers share: the address, the login (the password reloaded
/// after a sign-in), a pool of logged-in libcurl sessions and how their failures read.
final class CurlShare: Sendable {
    let account: String
    let share: ShareURL
    let pool = FileTransferPool(capacity: 4)
    private let password: Mutex<String?>
    private let reload: (@Sendable () -> String?)?
    let hostKey: HostKeyCheck?

    init(account: String, share: ShareURL, password: String?, hostKey: HostKeyCheck?, reload: (@Sendable () -> String?)?) {
        self.account = account
        self.share = share
        self.password = Mutex(password)
        self.hostKey = hostKey
        self.reload = reload
    }

    func reloadCredentials() {
        guard let reload else { return }
        let fresh = reload()
        password.withLock { $0 = fresh }
    }

    /// A transfer of `relative` (a folder's listing when `directory`).
    func transfer(_ relative: String, directory: Bool = false) -> FileTransfer {
        var transfer = FileTransfer(url: location(relative, directory: directory))
        transfer.user = share.user ?? (share.scheme == "sftp" ? nil : "anonymous")
        transfer.password = password.withLock { $0 } ?? (share.user == nil && share.scheme != "sftp" ? "nimbus@" : nil)
        transfer.privateKey = share.options["key_file"]
        transfer.hostKey = hostKey
        transfer.requireTLS = share.scheme == "ftps"
        return transfer
    }

    /// `ftps://` is FTP with `AUTH TLS` on the usual port (what NAS boxes serve); libcurl's own
    /// `ftps://` means TLS from the first byte, asked for with `?implicit=1`.
    private func location(_ relative: String, directory: Bool) -> String {
        let url = share.location(relative, directory: directory)
        if share.scheme == "ftps" && share.options["implicit"] == nil { return "ftp" + url.dropFirst(4) }
        return url
    }

    func perform(_ transfer: FileTransfer, _ path: String, onData: (UnsafeRawBufferPointer) -> Bool) throws(RemoteError) -> FileTransferInfo {
        do {
            return try pool.withSession { session throws(FileTransferError) in try session.perform(transfer, onData: onData) }
        } catch {
            throw remoteError(error, path)
        }
    }

    func data(_ transfer: FileTransfer, _ path: String) throws(StorageError) -> [UInt8] {
        do {
            return try rawData(transfer)
        } catch {
            throw storageError(remoteError(error, path))
        }
    }

    func rawData(_ transfer: FileTransfer) throws(FileTransferError) -> [UInt8] {
        try pool.withSession { session throws(FileTransferError) in try session.data(transfer, limit: 64 << 20) }
    }

    func remoteError(_ error: FileTransferError, _ path: String) -> RemoteError {
        let place = path.isEmpty ? account : account + ": " + path
        switch error.kind {
        case .unreachable: return RemoteError(.transient, "\(account): \(share.authority): \(error.message)", unreachable: true)
        case .refused: return RemoteError(.unauthorized, "\(account): the server refused the login")
        case .notFound: return RemoteError(.notFound, "\(place): no such file or folder")
        case .hostKey: return RemoteError(.unauthorized, "\(account): \(HostKeys.refusal(hostKey?.seen, share: share))")
        case .stalled: return RemoteError(.transient, "\(place): the server stopped sending (\(error.message))", unreachable: true)
        case .cancelled: return RemoteError(.permanent, "\(place): transfer stopped")
        case .failed: return RemoteError(.transient, "\(place): \(error.message)")
        }
    }

    func storageError(_ error: RemoteError) -> StorageError {
        switch error.kind {
        case .notFound: return StorageError(.notFound, error.message)
        case .unauthorized: return StorageError(.permission, error.message)
        default: return StorageError(.io, error.message)
        }
    }

    /// A file's bytes; one that ends before the listed size shrank on the server.
    func read(_ item: RemoteItem, _ range: Range<Int64>, into sink: (UnsafeRawBufferPointer) -> Bool) throws(RemoteError) {
        var transfer = transfer(item.path)
        transfer.range = range
        var received: Int64 = 0
        var declined = false
        do {
            _ = try perform(transfer, item.path) { chunk in
                received += Int64(chunk.count)
                declined = !sink(chunk)
                return !declined
            }
        } catch where declined {
            return
        }
        if received < range.upperBound - range.lowerBound {
            throw RemoteError(.changed, "\(account): \(item.path) is shorter than listed (it changed on the server)")
        }
    }

    /// Splits a listing into lines, leaving out (and reporting) names that are not UTF-8.
    static func lines(_ bytes: [UInt8], account: String, path: String, skipped: (String) -> Void) -> [String] {
        bytes.split(separator: UInt8(ascii: "\n")).compactMap { raw in
            var line = raw
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            guard let text = String(validating: line, as: UTF8.self) else {
                skipped("Skipping \"\(String(decoding: line, as: UTF8.self))\" in \"\(path)\" of \(account): name is not valid UTF-8")
                return nil
            }
            return text.isEmpty ? nil : text
        }
    }
}

struct CurlShareSource: RemoteSource {
    let share: CurlShare
    let item: RemoteItem

    func fetch(_ range: Range<Int64>, purpose: FetchPurpose, into sink: (UnsafeRawBufferPointer) -> Bool) throws(RemoteError) {
        try share.read(item, range, into: sink)
    }
}
