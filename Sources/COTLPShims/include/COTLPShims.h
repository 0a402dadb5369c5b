/*
 * Hand-written C helpers for OTLPWire. They survive regeneration of
 * Vendor/COTLPProto. Every function is prefixed COTLPShims_ and says why it
 * exists: Swift cannot expand the protoc-c `__INIT` macros, and the packing
 * and scanning loops are tight byte work best kept next to protobuf-c.
 */
#ifndef COTLPSHIMS_H
#define COTLPSHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <COTLPProto.h>

/* ---- struct initialisers (the generated __INIT macros are invisible to Swift) ---- */

#define COTLPSHIMS_INIT_FN(fn, type, init) \
    static inline void COTLPShims_init_##fn(type *message) { type value = init; *message = value; }

COTLPSHIMS_INIT_FN(any_value, Opentelemetry__Proto__Common__V1__AnyValue, OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__INIT)
COTLPSHIMS_INIT_FN(array_value, Opentelemetry__Proto__Common__V1__ArrayValue, OPENTELEMETRY__PROTO__COMMON__V1__ARRAY_VALUE__INIT)
COTLPSHIMS_INIT_FN(key_value_list, Opentelemetry__Proto__Common__V1__KeyValueList, OPENTELEMETRY__PROTO__COMMON__V1__KEY_VALUE_LIST__INIT)
COTLPSHIMS_INIT_FN(key_value, Opentelemetry__Proto__Common__V1__KeyValue, OPENTELEMETRY__PROTO__COMMON__V1__KEY_VALUE__INIT)
COTLPSHIMS_INIT_FN(scope, Opentelemetry__Proto__Common__V1__InstrumentationScope, OPENTELEMETRY__PROTO__COMMON__V1__INSTRUMENTATION_SCOPE__INIT)
COTLPSHIMS_INIT_FN(entity_ref, Opentelemetry__Proto__Common__V1__EntityRef, OPENTELEMETRY__PROTO__COMMON__V1__ENTITY_REF__INIT)
COTLPSHIMS_INIT_FN(resource, Opentelemetry__Proto__Resource__V1__Resource, OPENTELEMETRY__PROTO__RESOURCE__V1__RESOURCE__INIT)
COTLPSHIMS_INIT_FN(span, Opentelemetry__Proto__Trace__V1__Span, OPENTELEMETRY__PROTO__TRACE__V1__SPAN__INIT)
COTLPSHIMS_INIT_FN(span_event, Opentelemetry__Proto__Trace__V1__Span__Event, OPENTELEMETRY__PROTO__TRACE__V1__SPAN__EVENT__INIT)
COTLPSHIMS_INIT_FN(span_link, Opentelemetry__Proto__Trace__V1__Span__Link, OPENTELEMETRY__PROTO__TRACE__V1__SPAN__LINK__INIT)
COTLPSHIMS_INIT_FN(status, Opentelemetry__Proto__Trace__V1__Status, OPENTELEMETRY__PROTO__TRACE__V1__STATUS__INIT)
COTLPSHIMS_INIT_FN(scope_spans, Opentelemetry__Proto__Trace__V1__ScopeSpans, OPENTELEMETRY__PROTO__TRACE__V1__SCOPE_SPANS__INIT)
COTLPSHIMS_INIT_FN(resource_spans, Opentelemetry__Proto__Trace__V1__ResourceSpans, OPENTELEMETRY__PROTO__TRACE__V1__RESOURCE_SPANS__INIT)
COTLPSHIMS_INIT_FN(trace_request, Opentelemetry__Proto__Collector__Trace__V1__ExportTraceServiceRequest, OPENTELEMETRY__PROTO__COLLECTOR__TRACE__V1__EXPORT_TRACE_SERVICE_REQUEST__INIT)
COTLPSHIMS_INIT_FN(log_record, Opentelemetry__Proto__Logs__V1__LogRecord, OPENTELEMETRY__PROTO__LOGS__V1__LOG_RECORD__INIT)
COTLPSHIMS_INIT_FN(scope_logs, Opentelemetry__Proto__Logs__V1__ScopeLogs, OPENTELEMETRY__PROTO__LOGS__V1__SCOPE_LOGS__INIT)
COTLPSHIMS_INIT_FN(resource_logs, Opentelemetry__Proto__Logs__V1__ResourceLogs, OPENTELEMETRY__PROTO__LOGS__V1__RESOURCE_LOGS__INIT)
COTLPSHIMS_INIT_FN(logs_request, Opentelemetry__Proto__Collector__Logs__V1__ExportLogsServiceRequest, OPENTELEMETRY__PROTO__COLLECTOR__LOGS__V1__EXPORT_LOGS_SERVICE_REQUEST__INIT)

/* Encoding-only AnyValue stand-ins (scripts/bindings/otlpwire/encoding/v1/any_value_members.proto). */
COTLPSHIMS_INIT_FN(string_any_value, Otlpwire__Encoding__V1__StringAnyValue, OTLPWIRE__ENCODING__V1__STRING_ANY_VALUE__INIT)
COTLPSHIMS_INIT_FN(bool_any_value, Otlpwire__Encoding__V1__BoolAnyValue, OTLPWIRE__ENCODING__V1__BOOL_ANY_VALUE__INIT)
COTLPSHIMS_INIT_FN(int_any_value, Otlpwire__Encoding__V1__IntAnyValue, OTLPWIRE__ENCODING__V1__INT_ANY_VALUE__INIT)
COTLPSHIMS_INIT_FN(double_any_value, Otlpwire__Encoding__V1__DoubleAnyValue, OTLPWIRE__ENCODING__V1__DOUBLE_ANY_VALUE__INIT)
COTLPSHIMS_INIT_FN(bytes_any_value, Otlpwire__Encoding__V1__BytesAnyValue, OTLPWIRE__ENCODING__V1__BYTES_ANY_VALUE__INIT)
COTLPSHIMS_INIT_FN(present_key_value, Otlpwire__Encoding__V1__KeyValue, OTLPWIRE__ENCODING__V1__KEY_VALUE__INIT)

#undef COTLPSHIMS_INIT_FN

/* ---- packing ---- */

/*
 * Packs a whole request into `out` and returns the number of bytes written.
 *
 * Why not protobuf_c_message_get_packed_size + protobuf_c_message_pack: the
 * size pass is ~40% of protobuf-c's work (shared/notes/protobuf-c-headroom.md).
 * protobuf-c 1.4.1's pack does not need sizes in advance, so each span or log
 * record is packed by protobuf-c straight into `out` behind a 2-byte length
 * slot, and the envelope (request -> Resource* -> Scope*) tags and lengths are
 * written here around guessed 3-byte slots; a body is moved only when its real
 * length varint has another size. Resource, InstrumentationScope and every item
 * are packed by protobuf-c. Field order and bytes are those of
 * protobuf_c_message_pack on the whole request.
 *
 * `out` MUST have room for the packed request: protobuf-c writes without bounds
 * checks. The Swift encoder reserves an upper bound computed while it builds the
 * structs.
 */
size_t COTLPShims_pack_trace_request(const Opentelemetry__Proto__Collector__Trace__V1__ExportTraceServiceRequest *request, uint8_t *out);
size_t COTLPShims_pack_logs_request(const Opentelemetry__Proto__Collector__Logs__V1__ExportLogsServiceRequest *request, uint8_t *out);

/* ---- scanning (untrusted input, before protobuf-c) ---- */

enum {
    COTLPSHIMS_KIND_TRACES = 0,
    COTLPSHIMS_KIND_LOGS = 1,
};

enum {
    COTLPSHIMS_SCAN_OK = 0,
    COTLPSHIMS_SCAN_MALFORMED = 1,        /* not a valid protobuf message of the kind */
    COTLPSHIMS_SCAN_INVALID_UTF8 = 2,     /* a string field is not UTF-8 */
    COTLPSHIMS_SCAN_TOO_DEEP = 3,         /* nesting deeper than max_depth below the request */
    COTLPSHIMS_SCAN_UNSUPPORTED = 4,      /* valid protobuf protobuf-c cannot unpack (groups, mismatched wire types) */
    COTLPSHIMS_SCAN_TOO_MANY_ATTRIBUTES = 5, /* a span, event, link, log record, resource or scope over max_attributes */
    COTLPSHIMS_SCAN_TOO_LARGE = 6,        /* unpacking would allocate more than max_unpacked_bytes */
    COTLPSHIMS_SCAN_BAD_ID_LENGTH = 7,    /* a trace ID not 16 bytes or a span ID not 8 bytes (empty is fine) */
};

typedef struct {
    int status;                /* COTLPSHIMS_SCAN_* */
    size_t error_offset;       /* byte offset in the message where the fault was found */
    size_t unknown_fields;     /* fields skipped as unknown to the schema */
    size_t items;              /* spans or log records */
    size_t max_depth_seen;     /* deepest message level (request = 0) */
    const char *error_message; /* TOO_MANY_ATTRIBUTES: which message ("span", "resource", ...);
                                  BAD_ID_LENGTH: which field ("span trace_id", ...); static */
    size_t error_length;       /* BAD_ID_LENGTH: the ID's length in bytes */
    size_t unpacked_bytes;     /* estimate of what protobuf-c's unpack allocates (as far as scanned) */
} COTLPShims_ScanResult;

typedef struct {
    size_t max_depth;          /* deepest message level below the request */
    size_t max_attributes;     /* most `attributes` on one message */
    size_t max_unpacked_bytes; /* most bytes protobuf-c's unpack may allocate, as estimated */
} COTLPShims_ScanLimits;

/*
 * Walks `data` as an ExportTraceServiceRequest (kind TRACES) or an
 * ExportLogsServiceRequest (kind LOGS) without unpacking it and without
 * recursion: protobuf-c 1.4.1's unpack recurses once per nested message and
 * overflows the stack on deeply nested AnyValues (tens of KB of input are
 * enough), so the depth is checked here first, with an explicit stack bounded
 * by `limits->max_depth`. Also checks wire types, varints, lengths, field
 * number 0 and UTF-8 of string fields (the bindings declare strings as bytes,
 * so protobuf-c does not), the number of `attributes` of each message that has
 * them (kvlist values are not attributes), the length of every trace ID (16
 * bytes) and span ID (8 bytes) unless empty, and what unpacking would allocate
 * (a message of empty attributes unpacks to ~64 times its size); counts unknown
 * fields and items.
 */
void COTLPShims_scan(const uint8_t *data, size_t length, int kind, const COTLPShims_ScanLimits *limits,
                     COTLPShims_ScanResult *result);

/* Checks that `data` is well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF). */
int COTLPShims_utf8_valid(const uint8_t *data, size_t length);

#endif
