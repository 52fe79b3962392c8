// Linux interfaces that Swift's Glibc module does not export.
#ifndef NIMBUS_CLINUX_SHIM_H
#define NIMBUS_CLINUX_SHIM_H
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <netinet/tcp.h>
#include <sys/inotify.h>
#include <malloc.h>

// glibc's heap controls (malloc.h macros are not imported as constants).
static inline int clinux_limit_arenas(int count) { return mallopt(M_ARENA_MAX, count); }
static inline int clinux_malloc_trim(void) { return malloc_trim(0); }

// accept4 is only declared under _GNU_SOURCE, which would change the layout of shared system
// types (fd_set) seen by the other C modules; declare the one function instead.
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
static inline int clinux_accept4(int fd, int flags) { return accept4(fd, 0, 0, flags); }

// SO_PEERCRED's struct ucred, also _GNU_SOURCE only: the same layout under another name.
struct clinux_ucred { int pid; unsigned uid; unsigned gid; };
static inline int clinux_peer_credentials(int fd, int *pid, unsigned *uid) {
    struct clinux_ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    return 0;
}
#endif
