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

// A thread's nice value and time slice in one call: Linux 6.12's EEVDF scheduler reads
// sched_runtime of a SCHED_OTHER thread as its slice (0: the default), older kernels ignore
// it. `own` (SCHED_FLAG_RESET_ON_FORK): threads the caller creates start from the defaults.
// glibc 2.36 has no wrapper and syscall(2) is variadic, which Swift cannot call.
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
struct clinux_sched_attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
};
static inline int clinux_set_thread_slice(int nice, uint64_t slice_nanoseconds, int own) {
    struct clinux_sched_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.flags = own ? 1 : 0;
    attr.nice = nice;
    attr.runtime = slice_nanoseconds;
    return (int)syscall(SYS_sched_setattr, 0, &attr, 0);
}
static inline long long clinux_thread_slice(void) {
    struct clinux_sched_attr attr;
    memset(&attr, 0, sizeof attr);
    if (syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0) != 0) return -1;
    return (long long)attr.runtime;
}
// The calling thread's name as the kernel holds it (top -H, ps -L, perf): prctl(2) is
// variadic, and pthread_setname_np is _GNU_SOURCE only. At most 15 bytes are kept.
#include <sys/prctl.h>
static inline int clinux_name_thread(const char *name) { return prctl(PR_SET_NAME, name, 0, 0, 0); }

// The calling thread on one CPU (core >= 0) or on every CPU (core < 0): sched_setaffinity
// is _GNU_SOURCE only. The bench puts its client on the daemons' core, as on a one-core board.
#include <sched.h>
extern int sched_setaffinity(int pid, size_t size, const void *mask);
static inline int clinux_pin_thread(int core) {
    unsigned long long mask[16];
    memset(mask, core < 0 ? 0xff : 0, sizeof mask);
    if (core >= 0 && core < 1024) mask[core / 64] = 1ULL << (core % 64);
    return sched_setaffinity(0, sizeof mask, mask);
}
#endif
