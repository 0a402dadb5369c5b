/* System library protobuf-c (Debian: libprotobuf-c-dev). */
#ifndef CPROTOBUFC_SHIM_H
#define CPROTOBUFC_SHIM_H
#include <protobuf-c/protobuf-c.h>
#endif
