/* System library zlib (Debian: zlib1g-dev). */
#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H
#include <zlib.h>

/* deflateInit2 and inflateInit2 are macros (they pass ZLIB_VERSION and the
   struct size), which Swift cannot call. windowBits 15 + 16 selects the gzip
   wrapper (RFC 1952). */
static inline int CZlib_deflateInit2_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

static inline int CZlib_inflateInit2_gzip(z_stream *stream) {
    return inflateInit2(stream, 15 + 16);
}
#endif
