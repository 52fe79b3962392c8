// mpg123.h maps mpg123_param/getparam/info/feature to *2 variants through macros; Swift
// sees only the real functions, so callers use the *2 names directly.
#ifndef NIMBUS_CMPG123_SHIM_H
#define NIMBUS_CMPG123_SHIM_H
#include <sys/types.h>
#include <mpg123.h>
#endif
