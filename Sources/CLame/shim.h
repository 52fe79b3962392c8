#ifndef NIMBUS_CLAME_SHIM_H
#define NIMBUS_CLAME_SHIM_H
#include <lame/lame.h>
#endif
