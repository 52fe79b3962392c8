// FFmpeg's error codes are function-like macros Swift cannot import; the shim gives them
// names (libavutil/error.h). Scaling takes arrays of plane pointers, which Swift sees as
// tuples: one call with the frames themselves keeps that out of the Swift code.
#ifndef NIMBUS_CFFMPEG_SHIM_H
#define NIMBUS_CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/dict.h>
#include <libavutil/mem.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <errno.h>

static inline int nimbus_averror_eof(void) { return AVERROR_EOF; }
static inline int nimbus_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int64_t nimbus_av_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline int nimbus_sws_scale_frame(struct SwsContext *context, const AVFrame *source, AVFrame *target) {
    return sws_scale(context, (const uint8_t *const *)source->data, source->linesize, 0, source->height,
                     target->data, target->linesize);
}
static inline int nimbus_ff_qp2lambda(void) { return FF_QP2LAMBDA; }
#endif
