// zlib, to gzip the web page's text assets once at start.
#ifndef NIMBUS_CZLIB_SHIM_H
#define NIMBUS_CZLIB_SHIM_H
#include <zlib.h>
#include <stdlib.h>

/// `bytes` as a gzip member (deflateInit2's window bits 31), into a buffer the caller frees;
/// 0 on failure. deflateInit2 is a macro Swift cannot call.
static inline size_t nimbus_gzip(const unsigned char *bytes, size_t count, unsigned char **out) {
    z_stream stream = {0};
    if (deflateInit2(&stream, 9, Z_DEFLATED, 31, 9, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
    size_t capacity = deflateBound(&stream, count) + 32;
    unsigned char *buffer = malloc(capacity);
    if (!buffer) { deflateEnd(&stream); return 0; }
    stream.next_in = (unsigned char *)bytes;
    stream.avail_in = (uInt)count;
    stream.next_out = buffer;
    stream.avail_out = (uInt)capacity;
    int result = deflate(&stream, Z_FINISH);
    size_t produced = stream.total_out;
    deflateEnd(&stream);
    if (result != Z_STREAM_END) { free(buffer); return 0; }
    *out = buffer;
    return produced;
}
#endif
