#ifndef NIMBUS_COPUSFILE_SHIM_H
#define NIMBUS_COPUSFILE_SHIM_H
#include <opusfile.h>
#endif
