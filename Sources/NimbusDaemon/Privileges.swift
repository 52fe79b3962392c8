import Glibc
import NimbusSupport

/// MPD's `user` setting: a daemon started as root binds its sockets (port 6600 needs no root,
/// but a socket under /run may), then becomes `user` with that user's groups — `audio` among
/// them on a Debian box — before it opens any music, state or cache file.
enum Privileges {
    static func drop(to user: String) throws(SystemError) {
        guard let entry = getpwnam(user) else { throw SystemError("no such user \"\(user)\"", code: ENOENT) }
        let uid = entry.pointee.pw_uid, gid = entry.pointee.pw_gid
        guard initgroups(user, gid) == 0 else { throw SystemError("cannot set the groups of \"\(user)\"") }
        guard setgid(gid) == 0 else { throw SystemError("cannot change to the group of \"\(user)\"") }
        guard setuid(uid) == 0 else { throw SystemError("cannot become \"\(user)\"") }
    }
}
