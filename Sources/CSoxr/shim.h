// libsoxr: the resampler MPD's soxr plugin and sox's `rate` use. Its API needs no wrappers;
// the shim only gives the module one header to import.
#ifndef NIMBUS_CSOXR_SHIM_H
#define NIMBUS_CSOXR_SHIM_H
#include <soxr.h>
#endif
