// vorbisfile.h defines static ov_callbacks variables in the header, which Swift 6 rejects as
// shared mutable state; exclude them and pass our own callbacks instead.
#ifndef NIMBUS_CVORBIS_SHIM_H
#define NIMBUS_CVORBIS_SHIM_H
#define OV_EXCLUDE_STATIC_CALLBACKS
#include <vorbis/codec.h>
#include <vorbis/vorbisfile.h>
#include <vorbis/vorbisenc.h>
#endif
