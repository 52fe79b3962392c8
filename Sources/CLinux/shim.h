// Linux interfaces that Swift's Glibc module does not export.
#ifndef NIMBUS_CLINUX_SHIM_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define NIMBUS_CLINUX_SHIM_H
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

static inline int clinux_accept4(int fd, int flags) { return accept4(fd, 0, 0, flags); }
#endif
