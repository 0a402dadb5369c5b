/*
 * Hand-written C helpers for OTLPWire. They survive regeneration of
 * Vendor/COTLPProto. Every function is prefixed COTLPShims_ and says why it
 * exists: Swift cannot expand the protoc-c `__INIT` macros, and the packing
 * and scanning loops are tight byte work best kept next to protobuf-c.
 */
#ifndef COTLPSHIMS_H
#define COTLPSHIMS_H

#include <stdbool.h>
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
COTLPSHIMS_INIT_FN(log_record, Opentelemetry__Proto__Logs__V1__LogRecord, OPENTELEMETRY__PROTO__LOGS__V1__LOG_RECORD__INIT)
COTLPSHIMS_INIT_FN(metric, Opentelemetry__Proto__Metrics__V1__Metric, OPENTELEMETRY__PROTO__METRICS__V1__METRIC__INIT)
COTLPSHIMS_INIT_FN(gauge, Opentelemetry__Proto__Metrics__V1__Gauge, OPENTELEMETRY__PROTO__METRICS__V1__GAUGE__INIT)
COTLPSHIMS_INIT_FN(sum, Opentelemetry__Proto__Metrics__V1__Sum, OPENTELEMETRY__PROTO__METRICS__V1__SUM__INIT)
COTLPSHIMS_INIT_FN(histogram, Opentelemetry__Proto__Metrics__V1__Histogram, OPENTELEMETRY__PROTO__METRICS__V1__HISTOGRAM__INIT)
COTLPSHIMS_INIT_FN(exponential_histogram, Opentelemetry__Proto__Metrics__V1__ExponentialHistogram, OPENTELEMETRY__PROTO__METRICS__V1__EXPONENTIAL_HISTOGRAM__INIT)
COTLPSHIMS_INIT_FN(summary, Opentelemetry__Proto__Metrics__V1__Summary, OPENTELEMETRY__PROTO__METRICS__V1__SUMMARY__INIT)
COTLPSHIMS_INIT_FN(number_data_point, Opentelemetry__Proto__Metrics__V1__NumberDataPoint, OPENTELEMETRY__PROTO__METRICS__V1__NUMBER_DATA_POINT__INIT)
COTLPSHIMS_INIT_FN(histogram_data_point, Opentelemetry__Proto__Metrics__V1__HistogramDataPoint, OPENTELEMETRY__PROTO__METRICS__V1__HISTOGRAM_DATA_POINT__INIT)
COTLPSHIMS_INIT_FN(exponential_histogram_data_point, Opentelemetry__Proto__Metrics__V1__ExponentialHistogramDataPoint, OPENTELEMETRY__PROTO__METRICS__V1__EXPONENTIAL_HISTOGRAM_DATA_POINT__INIT)
COTLPSHIMS_INIT_FN(buckets, Opentelemetry__Proto__Metrics__V1__ExponentialHistogramDataPoint__Buckets, OPENTELEMETRY__PROTO__METRICS__V1__EXPONENTIAL_HISTOGRAM_DATA_POINT__BUCKETS__INIT)
COTLPSHIMS_INIT_FN(summary_data_point, Opentelemetry__Proto__Metrics__V1__SummaryDataPoint, OPENTELEMETRY__PROTO__METRICS__V1__SUMMARY_DATA_POINT__INIT)
COTLPSHIMS_INIT_FN(value_at_quantile, Opentelemetry__Proto__Metrics__V1__SummaryDataPoint__ValueAtQuantile, OPENTELEMETRY__PROTO__METRICS__V1__SUMMARY_DATA_POINT__VALUE_AT_QUANTILE__INIT)
COTLPSHIMS_INIT_FN(exemplar, Opentelemetry__Proto__Metrics__V1__Exemplar, OPENTELEMETRY__PROTO__METRICS__V1__EXEMPLAR__INIT)

/* Encoding-only AnyValue stand-ins (scripts/bindings/otlpwire/encoding/v1/any_value_members.proto). */
COTLPSHIMS_INIT_FN(string_any_value, Otlpwire__Encoding__V1__StringAnyValue, OTLPWIRE__ENCODING__V1__STRING_ANY_VALUE__INIT)
COTLPSHIMS_INIT_FN(bool_any_value, Otlpwire__Encoding__V1__BoolAnyValue, OTLPWIRE__ENCODING__V1__BOOL_ANY_VALUE__INIT)
COTLPSHIMS_INIT_FN(int_any_value, Otlpwire__Encoding__V1__IntAnyValue, OTLPWIRE__ENCODING__V1__INT_ANY_VALUE__INIT)
COTLPSHIMS_INIT_FN(double_any_value, Otlpwire__Encoding__V1__DoubleAnyValue, OTLPWIRE__ENCODING__V1__DOUBLE_ANY_VALUE__INIT)
COTLPSHIMS_INIT_FN(bytes_any_value, Otlpwire__Encoding__V1__BytesAnyValue, OTLPWIRE__ENCODING__V1__BYTES_ANY_VALUE__INIT)
COTLPSHIMS_INIT_FN(present_key_value, Otlpwire__Encoding__V1__KeyValue, OTLPWIRE__ENCODING__V1__KEY_VALUE__INIT)
COTLPSHIMS_INIT_FN(packed_key_value, Otlpwire__Encoding__V1__PackedKeyValue, OTLPWIRE__ENCODING__V1__PACKED_KEY_VALUE__INIT)

#undef COTLPSHIMS_INIT_FN

/* ---- the request envelope, one for every signal ---- */

/*
 * ExportTraceServiceRequest -> ResourceSpans -> ScopeSpans,
 * ExportLogsServiceRequest -> ResourceLogs -> ScopeLogs and
 * ExportMetricsServiceRequest -> ResourceMetrics -> ScopeMetrics have the same
 * fields with the same numbers and types; only the items differ (Span,
 * LogRecord or Metric).
 * These three structs are that envelope once. shims.c asserts that their
 * layout is the generated structs' layout, so a request protobuf-c unpacked is
 * read through them (COTLPShims_unpack_request), and the encoder builds them
 * for COTLPShims_pack_request. `base` is left zero by the encoder: the envelope
 * is packed here, never by protobuf-c.
 */
typedef struct COTLPShims_ScopeGroup {
    ProtobufCMessage base;
    Opentelemetry__Proto__Common__V1__InstrumentationScope *scope;
    size_t n_items;
    ProtobufCMessage **items; /* Span, LogRecord or Metric */
    ProtobufCBinaryData schema_url;
} COTLPShims_ScopeGroup;

typedef struct COTLPShims_ResourceGroup {
    ProtobufCMessage base;
    Opentelemetry__Proto__Resource__V1__Resource *resource;
    size_t n_scope_groups;
    COTLPShims_ScopeGroup **scope_groups;
    ProtobufCBinaryData schema_url;
} COTLPShims_ResourceGroup;

typedef struct COTLPShims_Request {
    ProtobufCMessage base;
    size_t n_resource_groups;
    COTLPShims_ResourceGroup **resource_groups;
} COTLPShims_Request;

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
 * protobuf_c_message_pack on the whole request, for either signal (the two
 * envelopes share their field numbers).
 *
 * `out` MUST have room for the packed request: protobuf-c writes without bounds
 * checks. The Swift encoder reserves an upper bound computed while it builds the
 * structs.
 */
size_t COTLPShims_pack_request(const COTLPShims_Request *request, uint8_t *out);

/*
 * Unpacks an ExportTraceServiceRequest (kind TRACES),
 * ExportLogsServiceRequest (kind LOGS) or ExportMetricsServiceRequest (kind
 * METRICS) with protobuf-c, allocating from
 * `allocator`, and returns it as the shared envelope; NULL when protobuf-c
 * fails. Only for bytes the scanner accepted (protobuf-c's unpack recurses).
 */
COTLPShims_Request *COTLPShims_unpack_request(int32_t kind, ProtobufCAllocator *allocator, size_t len, const uint8_t *data);

/* ---- protobuf-c's memory while it unpacks ---- */

/*
 * A bump allocator for protobuf-c's unpack, in C so that each of its many
 * small allocations (every sub-message, array and string copy) is a few
 * instructions with no call into Swift: it takes from the block
 * [cursor, cursor + remaining) and calls `refill` (the Swift arena) only when
 * the block runs out. Memory is freed all at once by its owner, so `free`
 * does nothing. Pass the struct as the ProtobufCAllocator's allocator_data.
 */
typedef struct COTLPShims_Bump {
    uint8_t *cursor;
    size_t remaining;
    /* `size` (a multiple of 8) bytes when the block is spent, updating cursor and remaining; NULL refuses */
    void *(*refill)(struct COTLPShims_Bump *bump, size_t size);
    void *owner;
} COTLPShims_Bump;

void *COTLPShims_bump_alloc(void *bump, size_t size);
void COTLPShims_bump_free(void *bump, void *pointer);

/* ---- scanning (untrusted input, before protobuf-c) ---- */

enum {
    COTLPSHIMS_KIND_TRACES = 0,
    COTLPSHIMS_KIND_LOGS = 1,
    COTLPSHIMS_KIND_METRICS = 2, /* ExportMetricsServiceRequest: its items are metrics */
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
    COTLPSHIMS_SCAN_TOO_MANY_FIELDS = 8,  /* a message of more fields than protobuf-c unpacks (134,217,712) */
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
    size_t model_bytes;        /* estimate of the Swift model built from it, with limits->model_costs */
    int needs_merge;           /* a singular message field occurs twice in one message: see COTLPShims_merge */
} COTLPShims_ScanResult;

/* What the Swift model takes per decoded message or field, in bytes (MemoryLayout strides plus heap headers). */
typedef struct {
    size_t span, span_event, span_link, log_record; /* one element of the model's arrays */
    size_t key_value;           /* an OTLPAttribute */
    size_t any_value;           /* an OTLPAttributeValue in an array, or the array behind array/kvlist values */
    size_t resource_group;      /* OTLPResourceSpans / OTLPResourceLogs, with its resource */
    size_t scope_group;         /* OTLPScopeSpans / OTLPScopeLogs, with its scope */
    size_t entity_ref;
    size_t metric, number_point, histogram_point, exponential_histogram_point, summary_point, exemplar; /* metrics */
    size_t other;               /* status and anything else */
    size_t heap_string_overhead; /* added to a string or bytes field's length when it needs its own storage */
    size_t inline_string_bytes;  /* strings up to this length are stored inline (Swift small strings) */
} COTLPShims_ModelCosts;

typedef struct {
    size_t max_depth;          /* deepest message level below the request (at most COTLPSHIMS_MAX_DEPTH) */
    size_t max_attributes;     /* most `attributes` on one message */
    size_t max_unpacked_bytes; /* most bytes unpack plus the model may take, as estimated (unpacked_bytes + model_bytes) */
    const COTLPShims_ModelCosts *model_costs; /* NULL: model_bytes stays 0 */
} COTLPShims_ScanLimits;

/* What the scan's decoded-memory estimate adds for one string or bytes field of `length` bytes (not a message):
   protobuf-c's copy, aligned to 8. Shared by the scan and the encoder's census (COTLPShims_Census). */
static inline size_t COTLPShims_len_field_unpacked_bytes(size_t length) { return (length + 7) & ~(size_t)7; }

/* A message with more fields than this costs the scan's estimate 64 bytes per field (protobuf-c's slabs). */
#define COTLPSHIMS_SLAB_FIELD_THRESHOLD 16

/*
 * A traces or logs request as the encoder built it, counted while building: per message type the messages
 * below the request, the string and bytes fields, and the fields of messages with more than
 * COTLPSHIMS_SLAB_FIELD_THRESHOLD fields (their count, or an upper bound of it). COTLPShims_estimate_census works
 * the scan's decoded-memory estimate (unpacked_bytes + model_bytes) out of it, by the scan's own per-message costs.
 */
typedef struct {
    size_t resource_groups, scope_groups, spans, span_events, span_links, statuses, resources, entity_refs, scopes,
        key_values, any_values, array_values, kv_lists, log_records;
    size_t len_fields_unpacked; /* sum of COTLPShims_len_field_unpacked_bytes over string and bytes fields */
    size_t long_fields;         /* string and bytes fields longer than model_costs->inline_string_bytes ... */
    size_t long_field_bytes;    /* ... and their bytes */
    size_t slab_fields;         /* sum of the fields of messages with more than COTLPSHIMS_SLAB_FIELD_THRESHOLD (or bounds) */
} COTLPShims_Census;

/* The scan's estimate (unpacked_bytes + model_bytes, saturating) for a request of `kind` (TRACES or LOGS) counted
   by `census`, with the same per-message costs as COTLPShims_scan; SIZE_MAX for any other kind. */
size_t COTLPShims_estimate_census(const COTLPShims_Census *census, int kind, const COTLPShims_ModelCosts *costs);

/* The deepest nesting the scanner accepts whatever max_depth says (defence in depth; the Swift API allows 128). */
#define COTLPSHIMS_MAX_DEPTH 10000

/*
 * Walks `data` as an ExportTraceServiceRequest (kind TRACES) or an
 * ExportLogsServiceRequest (kind LOGS) or an ExportMetricsServiceRequest
 * (kind METRICS, for its evidence and limits) without unpacking it and without
 * recursion: protobuf-c 1.4.1's unpack recurses once per nested message and
 * overflows the stack on deeply nested AnyValues (tens of KB of input are
 * enough), so the depth is checked here first, with an explicit stack bounded
 * by `limits->max_depth`. Also checks wire types, varints, lengths, field
 * number 0 and UTF-8 of string fields (the bindings declare strings as bytes,
 * so protobuf-c does not), the number of `attributes` of each message that has
 * them (kvlist values are not attributes), the length of every trace ID (16
 * bytes) and span ID (8 bytes) unless empty, and what unpacking and the Swift
 * model would allocate (a message of empty attributes unpacks to ~64 times its
 * size); counts unknown fields and items. Every size sum saturates instead of
 * wrapping.
 *
 * Counts hold for the message as sent: when `needs_merge` is set, merge it
 * (COTLPShims_merge) and scan the result again for the limits of the merged
 * message.
 */
void COTLPShims_scan(const uint8_t *data, size_t length, int kind, const COTLPShims_ScanLimits *limits,
                     COTLPShims_ScanResult *result);

/*
 * COTLPShims_scan without its shortcuts: the scan takes a known scalar, string, bytes or ID field, a message
 * field that is not singular, and a KeyValue attribute of the common shape (a key, then an AnyValue with one
 * string, bool, int or double) in one step each, and leaves anything else, any fault and any field that
 * passes a limit to the long way, field by field, which this function always takes. Both give the same
 * result for every input (tests compare them on damaged records); this one is the reference, not for use.
 */
void COTLPShims_scan_long_way(const uint8_t *data, size_t length, int kind, const COTLPShims_ScanLimits *limits,
                              COTLPShims_ScanResult *result);

/*
 * Rewrites a message that scanned OK (with needs_merge set) so that protobuf-c
 * reads what protobuf defines: every singular message field that occurs more
 * than once in a message (a span's status, a resource, a KeyValue's value, an
 * AnyValue's kvlist_value or array_value) becomes one occurrence holding the
 * concatenation of the occurrences, merged again at the next level; for the
 * AnyValue oneof and a Metric's data oneof, the last member wins, and
 * consecutive occurrences of the same message member merge. Other fields are copied in order. (protobuf-c
 * 1.4.1's own merge loses proto3 scalars of the earlier message, such as a
 * status code, and replaces a oneof message member instead of merging it.)
 *
 * The result is never longer than the input: give `out` `length` bytes of
 * room (`out_capacity`; every write is checked against it). Returns the bytes
 * written, or (size_t)-1 when the input is not a valid message (not scanned
 * first), nests deeper than 256 levels, or memory runs out.
 */
size_t COTLPShims_merge(const uint8_t *data, size_t length, int kind, uint8_t *out, size_t out_capacity);

/* Checks that `data` is well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF). */
int COTLPShims_utf8_valid(const uint8_t *data, size_t length);

/*
 * Renames `from` to `to` unless `to` exists (then fails with EEXIST), atomically where the file system
 * supports it: Swift's Glibc module does not declare renameat2 (a GNU extension), and plain rename(2)
 * silently replaces the target. Returns 0, or -1 with errno set.
 */
int COTLPShims_rename_noreplace(const char *from, const char *to);

/* ---- random IDs (random.c) ---- */

/* The next value of this thread's xoshiro256** generator into *value; false (and nothing drawn) when the
   thread must seed it first: its first use, or in a child process after fork. */
bool COTLPShims_random_next(uint64_t *value);
/* Seeds this thread's generator (from the system's randomness). */
void COTLPShims_random_seed(uint64_t a, uint64_t b, uint64_t c, uint64_t d);

#endif
