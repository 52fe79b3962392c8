// libasound's error handler type is variadic, so Swift cannot supply one; a C no-op handler
// silences the "ALSA lib ..." lines a failed open prints to stderr.
#ifndef NIMBUS_CALSA_SHIM_H
#define NIMBUS_CALSA_SHIM_H
#include <alsa/asoundlib.h>

static void calsa_null_error_handler(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}
static inline void calsa_silence_errors(void) { snd_lib_error_set_handler(calsa_null_error_handler); }
#endif
