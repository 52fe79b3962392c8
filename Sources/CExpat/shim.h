// Expat, the XML parser MPD uses for its XSPF, ASX and RSS playlists and its WebDAV storage.
#ifndef NIMBUS_CEXPAT_SHIM_H
#define NIMBUS_CEXPAT_SHIM_H
#include <expat.h>
#endif
