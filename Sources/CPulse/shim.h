// libpulse (Debian's libpulse-dev): the asynchronous API on a threaded main loop, as MPD's
// pulse output and mixer use it — streams, sink-input volume, sink formats.
#include <pulse/pulseaudio.h>
