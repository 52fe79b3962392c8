// libebur128 (Debian's libebur128-dev): EBU R128 loudness, loudness range, sample and true
// peak — the library loudgain and rsgain measure with.
#include <ebur128.h>
