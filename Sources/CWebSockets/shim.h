// libwebsockets: the web page's HTTP and WebSocket server (the library Debian's own web
// services use for both), so no HTTP or WebSocket framing is written by hand.
#ifndef NIMBUS_CWEBSOCKETS_SHIM_H
#define NIMBUS_CWEBSOCKETS_SHIM_H
#include <libwebsockets.h>

/// LWS_PRE as a value Swift can read (it is a macro of an expression).
static inline size_t nimbus_lws_pre(void) { return LWS_PRE; }

/// Adopts a connected socket as a raw connection bound to the vhost's `protocol`.
static inline struct lws *nimbus_lws_adopt_raw_socket(struct lws_vhost *vhost, int fd, const char *protocol) {
    lws_sock_file_fd_type descriptor;
    descriptor.sockfd = fd;
    return lws_adopt_descriptor_vhost(vhost, LWS_ADOPT_SOCKET, descriptor, protocol, NULL);
}

/// Puts a listening socket the daemon bound into the service loop: readable means a connection
/// waits (LWS_CALLBACK_RAW_RX_FILE), which the server accepts and adopts.
static inline struct lws *nimbus_lws_adopt_listener(struct lws_vhost *vhost, int fd, const char *protocol) {
    lws_sock_file_fd_type descriptor;
    descriptor.filefd = fd;
    return lws_adopt_descriptor_vhost(vhost, LWS_ADOPT_RAW_FILE_DESC, descriptor, protocol, NULL);
}

/// The file descriptor of a raw-file connection (a listener adopted above).
static inline int nimbus_lws_file_fd(struct lws *wsi) { return lws_get_socket_fd(wsi); }
#endif
