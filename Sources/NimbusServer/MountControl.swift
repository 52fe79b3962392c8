import NimbusStorage
import NimbusSupport

/// Mounting storages into the database (`mount`, `unmount`, `listmounts`), provided by the
/// daemon, which knows the cloud accounts.
@CoreActor
public protocol MountControl: AnyObject, Sendable {
    /// Mount point and storage URI of every mount.
    var mounts: [(name: String, uri: String)] { get }
    func mount(_ name: String, uri: String) throws(MountFailure)
    /// What `mount` must check with a server before it answers (a share's login and path),
    /// run off the core loop; nil when the URI needs no check. Throws at once for a bad name.
    func check(_ name: String, uri: String) throws(MountFailure) -> (@Sendable () throws(MountFailure) -> Void)?
    func unmount(_ name: String) throws(MountFailure)
    /// `update NAME` of a configured account that could not be mounted (no token yet, before
    /// `nimbus authorize`) mounts it now if it can be.
    func retryAccount(_ name: String)
    /// Looks for shares on the LAN (`listneighbors`): blocking, run off the core loop; nil
    /// when the daemon may not use multicast (`zeroconf_enabled "no"`).
    var neighborSearch: (@Sendable () -> [(uri: String, name: String)])? { get }
}

public enum MountFailure: Error, Equatable {
    case badMountPoint
    case busy
    case alreadyMounted
    case unrecognized
    /// A storage kind MPD has a plugin for (NFS, SMB, udisks) and Nimbus does not.
    case unsupported(scheme: String)
    case notMountPoint
    case failed(String)
    /// The server refused the login.
    case refused(String)
    /// The share or the folder does not exist.
    case missing(String)
}
