#ifndef NIMBUS_CFLAC_SHIM_H
#define NIMBUS_CFLAC_SHIM_H
#include <FLAC/stream_decoder.h>
#include <FLAC/stream_encoder.h>
#include <FLAC/metadata.h>
#endif
