#ifndef NIMBUS_CCHROMAPRINT_SHIM_H
#define NIMBUS_CCHROMAPRINT_SHIM_H
#include <chromaprint.h>
#endif
