/* System library libdeflate (Debian: libdeflate-dev), for gzip compression on Linux; reading stays on zlib. */
#ifndef CLIBDEFLATE_SHIM_H
#define CLIBDEFLATE_SHIM_H
#include <libdeflate.h>
#endif
