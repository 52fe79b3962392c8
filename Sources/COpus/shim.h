// opus_encoder_ctl is variadic, which Swift cannot call: one wrapper per request used.
#ifndef NIMBUS_COPUS_SHIM_H
#define NIMBUS_COPUS_SHIM_H
#include <opus.h>

static inline int nimbus_opus_set_bitrate(OpusEncoder *encoder, opus_int32 value) {
    return opus_encoder_ctl(encoder, OPUS_SET_BITRATE(value));
}
static inline int nimbus_opus_set_complexity(OpusEncoder *encoder, opus_int32 value) {
    return opus_encoder_ctl(encoder, OPUS_SET_COMPLEXITY(value));
}
static inline int nimbus_opus_set_signal(OpusEncoder *encoder, opus_int32 value) {
    return opus_encoder_ctl(encoder, OPUS_SET_SIGNAL(value));
}
static inline int nimbus_opus_lookahead(OpusEncoder *encoder) {
    opus_int32 value = 0;
    opus_encoder_ctl(encoder, OPUS_GET_LOOKAHEAD(&value));
    return value;
}
#endif
