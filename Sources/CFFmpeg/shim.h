// FFmpeg's error codes are function-like macros Swift cannot import; the shim gives them
// names (libavutil/error.h).
#ifndef NIMBUS_CFFMPEG_SHIM_H
#define NIMBUS_CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/dict.h>
#include <libavutil/mem.h>
#include <errno.h>

static inline int nimbus_averror_eof(void) { return AVERROR_EOF; }
static inline int nimbus_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int64_t nimbus_av_nopts_value(void) { return AV_NOPTS_VALUE; }
#endif
