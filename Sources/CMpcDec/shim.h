// libmpcdec (Debian's libmpcdec-dev, no pkg-config file): Musepack SV7 and SV8 decoding.
#include <mpc/mpcdec.h>
