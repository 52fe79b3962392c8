// libcue (Debian's libcue-dev): CUE sheets parsed into discs, tracks, CD-TEXT and REM.
#include <libcue.h>
