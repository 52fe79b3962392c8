// libnfs's synchronous API, as MPD's NFS storage uses it: one context per export.
#ifndef NIMBUS_CNFS_SHIM_H
#define NIMBUS_CNFS_SHIM_H
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <nfsc/libnfs.h>

static inline int cnfs_is_directory(uint64_t mode) { return S_ISDIR((mode_t)mode); }
static inline int cnfs_is_file(uint64_t mode) { return S_ISREG((mode_t)mode); }
static inline int cnfs_open_read(struct nfs_context *nfs, const char *path, struct nfsfh **handle) {
    return nfs_open(nfs, path, O_RDONLY, handle);
}

#endif
