#include "COTLPShims.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ==== packing ========================================================= */

_Static_assert(sizeof(ProtobufCBinaryData) == 2 * sizeof(void *), "ProtobufCBinaryData is (len, data)");

static size_t varint_size(uint64_t value) {
    size_t n = 1;
    while (value >= 0x80) { value >>= 7; n++; }
    return n;
}

static uint8_t *put_varint(uint8_t *p, uint64_t value) {
    while (value >= 0x80) { *p++ = (uint8_t)(value | 0x80); value >>= 7; }
    *p++ = (uint8_t)value;
    return p;
}

/* The body of `body_len` bytes starts at slot + slot_len. Writes its length
   varint at slot, moving the body when the varint is not slot_len bytes long.
   Returns the bytes from slot to the end of the body. */
static size_t close_slot(uint8_t *slot, size_t slot_len, size_t body_len) {
    size_t vlen = varint_size(body_len);
    if (vlen != slot_len) memmove(slot + vlen, slot + slot_len, body_len);
    put_varint(slot, body_len);
    return vlen + body_len;
}

/* tag + length + message packed by protobuf-c, with a length slot of slot_len bytes. */
static size_t pack_field_message(uint8_t tag, const ProtobufCMessage *message, uint8_t *out, size_t slot_len) {
    out[0] = tag;
    size_t body = protobuf_c_message_pack(message, out + 1 + slot_len);
    return 1 + close_slot(out + 1, slot_len, body);
}

static uint8_t *put_bytes_field(uint8_t *p, uint8_t tag, ProtobufCBinaryData value) {
    if (value.len == 0) return p;
    *p++ = tag;
    p = put_varint(p, value.len);
    memcpy(p, value.data, value.len);
    return p + value.len;
}

#define ENVELOPE_SLOT 3 /* exact for bodies of 16 KiB ..< 2 MiB: a batch of a few hundred items */
#define ITEM_SLOT 2     /* exact for items of 128 ..< 16384 bytes */

/* The envelope structs are the generated ones, field for field, for both signals. */
#define SAME_FIELD(ours, theirs, ours_field, theirs_field) \
    _Static_assert(offsetof(ours, ours_field) == offsetof(theirs, theirs_field) \
                   && sizeof(((ours *)0)->ours_field) == sizeof(((theirs *)0)->theirs_field), #theirs "." #theirs_field)
#define SAME_ENVELOPE(request_t, n_groups, groups, resource_group_t, n_scopes, scopes, scope_group_t, n_items_field, items_field) \
    _Static_assert(sizeof(COTLPShims_Request) == sizeof(request_t), #request_t); \
    SAME_FIELD(COTLPShims_Request, request_t, n_resource_groups, n_groups); \
    SAME_FIELD(COTLPShims_Request, request_t, resource_groups, groups); \
    _Static_assert(sizeof(COTLPShims_ResourceGroup) == sizeof(resource_group_t), #resource_group_t); \
    SAME_FIELD(COTLPShims_ResourceGroup, resource_group_t, resource, resource); \
    SAME_FIELD(COTLPShims_ResourceGroup, resource_group_t, n_scope_groups, n_scopes); \
    SAME_FIELD(COTLPShims_ResourceGroup, resource_group_t, scope_groups, scopes); \
    SAME_FIELD(COTLPShims_ResourceGroup, resource_group_t, schema_url, schema_url); \
    _Static_assert(sizeof(COTLPShims_ScopeGroup) == sizeof(scope_group_t), #scope_group_t); \
    SAME_FIELD(COTLPShims_ScopeGroup, scope_group_t, scope, scope); \
    SAME_FIELD(COTLPShims_ScopeGroup, scope_group_t, n_items, n_items_field); \
    SAME_FIELD(COTLPShims_ScopeGroup, scope_group_t, items, items_field); \
    SAME_FIELD(COTLPShims_ScopeGroup, scope_group_t, schema_url, schema_url)

SAME_ENVELOPE(Opentelemetry__Proto__Collector__Trace__V1__ExportTraceServiceRequest, n_resource_spans, resource_spans,
              Opentelemetry__Proto__Trace__V1__ResourceSpans, n_scope_spans, scope_spans,
              Opentelemetry__Proto__Trace__V1__ScopeSpans, n_spans, spans);
SAME_ENVELOPE(Opentelemetry__Proto__Collector__Logs__V1__ExportLogsServiceRequest, n_resource_logs, resource_logs,
              Opentelemetry__Proto__Logs__V1__ResourceLogs, n_scope_logs, scope_logs,
              Opentelemetry__Proto__Logs__V1__ScopeLogs, n_log_records, log_records);
SAME_ENVELOPE(Opentelemetry__Proto__Collector__Metrics__V1__ExportMetricsServiceRequest, n_resource_metrics, resource_metrics,
              Opentelemetry__Proto__Metrics__V1__ResourceMetrics, n_scope_metrics, scope_metrics,
              Opentelemetry__Proto__Metrics__V1__ScopeMetrics, n_metrics, metrics);

size_t COTLPShims_pack_request(const COTLPShims_Request *request, uint8_t *out) {
    uint8_t *p = out;
    for (size_t i = 0; i < request->n_resource_groups; i++) {
        const COTLPShims_ResourceGroup *rg = request->resource_groups[i];
        *p = 0x0A;
        uint8_t *rg_slot = p + 1, *rg_body = rg_slot + ENVELOPE_SLOT, *q = rg_body;
        if (rg->resource) q += pack_field_message(0x0A, &rg->resource->base, q, 1);
        for (size_t j = 0; j < rg->n_scope_groups; j++) {
            const COTLPShims_ScopeGroup *sg = rg->scope_groups[j];
            *q = 0x12;
            uint8_t *sg_slot = q + 1, *sg_body = sg_slot + ENVELOPE_SLOT, *r = sg_body;
            if (sg->scope) r += pack_field_message(0x0A, &sg->scope->base, r, 1);
            for (size_t k = 0; k < sg->n_items; k++) r += pack_field_message(0x12, sg->items[k], r, ITEM_SLOT);
            r = put_bytes_field(r, 0x1A, sg->schema_url);
            q = sg_slot + close_slot(sg_slot, ENVELOPE_SLOT, (size_t)(r - sg_body));
        }
        q = put_bytes_field(q, 0x1A, rg->schema_url);
        p = rg_slot + close_slot(rg_slot, ENVELOPE_SLOT, (size_t)(q - rg_body));
    }
    return (size_t)(p - out);
}

COTLPShims_Request *COTLPShims_unpack_request(int32_t kind, ProtobufCAllocator *allocator, size_t len, const uint8_t *data) {
    const ProtobufCMessageDescriptor *descriptor = kind == COTLPSHIMS_KIND_LOGS
        ? &opentelemetry__proto__collector__logs__v1__export_logs_service_request__descriptor
        : kind == COTLPSHIMS_KIND_METRICS
        ? &opentelemetry__proto__collector__metrics__v1__export_metrics_service_request__descriptor
        : &opentelemetry__proto__collector__trace__v1__export_trace_service_request__descriptor;
    return (COTLPShims_Request *)protobuf_c_message_unpack(descriptor, allocator, len, data);
}

/* ==== unpacking memory ================================================= */

void *COTLPShims_bump_alloc(void *data, size_t size) {
    COTLPShims_Bump *bump = data;
    size_t rounded = size == 0 ? 8 : (size + 7) & ~(size_t)7;
    if (rounded < size) return NULL; /* size near SIZE_MAX */
    if (rounded > bump->remaining) return bump->refill(bump, rounded);
    void *pointer = bump->cursor;
    bump->cursor += rounded;
    bump->remaining -= rounded;
    return pointer;
}

void COTLPShims_bump_free(void *bump, void *pointer) {
    (void)bump;
    (void)pointer;
}

/* ==== UTF-8 ============================================================ */

/* Whether s[0..<n] is all ASCII: 8 bytes at a time, the tail OR-ed in, one branch at the end. */
static inline __attribute__((always_inline)) int is_ascii(const uint8_t *s, size_t n) {
    uint64_t bits = 0;
    if (n >= 8) {
        uint64_t w;
        for (size_t i = 0; i + 8 <= n; i += 8) {
            memcpy(&w, s + i, 8);
            bits |= w;
        }
        memcpy(&w, s + n - 8, 8); /* the tail, overlapping what was read */
        bits |= w;
    } else if (n >= 4) {
        uint32_t head, tail;
        memcpy(&head, s, 4);
        memcpy(&tail, s + n - 4, 4);
        bits = head | tail;
    } else {
        for (size_t i = 0; i < n; i++) bits |= s[i];
    }
    return (bits & 0x8080808080808080ULL) == 0;
}

int COTLPShims_utf8_valid(const uint8_t *s, size_t n) {
    if (is_ascii(s, n)) return 1;
    size_t i = 0;
    while (i < n) {
        /* ASCII fast path, 8 bytes at a time */
        while (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (w & 0x8080808080808080ULL) break;
            i += 8;
        }
        if (i >= n) break;
        uint8_t c = s[i];
        if (c < 0x80) { i++; continue; }
        size_t need;
        uint32_t cp;
        if (c >= 0xC2 && c <= 0xDF) { need = 1; cp = c & 0x1F; }
        else if (c >= 0xE0 && c <= 0xEF) { need = 2; cp = c & 0x0F; }
        else if (c >= 0xF0 && c <= 0xF4) { need = 3; cp = c & 0x07; }
        else return 0;
        if (n - i <= need) return 0;
        for (size_t k = 1; k <= need; k++) {
            uint8_t d = s[i + k];
            if ((d & 0xC0) != 0x80) return 0;
            cp = (cp << 6) | (d & 0x3F);
        }
        if (need == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) return 0;
        if (need == 3 && (cp < 0x10000 || cp > 0x10FFFF)) return 0;
        i += need + 1;
    }
    return 1;
}

/* ==== scanning ========================================================= */

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_SGROUP = 3, WT_EGROUP = 4, WT_I32 = 5 };
enum { F_NONE = 0, F_VARINT, F_I64, F_I32, F_STRING, F_BYTES, F_MESSAGE, F_ATTRIBUTES /* repeated KeyValue attributes */,
       F_TRACE_ID /* bytes: empty or 16 */, F_SPAN_ID /* bytes: empty or 8 */,
       F_PACKED_I64 /* repeated fixed64 or double: packed (length-delimited) or one 8-byte value each */,
       F_PACKED_VARINT /* repeated uint64: packed or one varint each */ };

enum {
    M_TRACE_REQUEST, M_RESOURCE_SPANS, M_SCOPE_SPANS, M_SPAN, M_EVENT, M_LINK, M_STATUS,
    M_RESOURCE, M_ENTITY_REF, M_SCOPE, M_KEY_VALUE, M_ANY_VALUE, M_ARRAY_VALUE, M_KV_LIST,
    M_LOGS_REQUEST, M_RESOURCE_LOGS, M_SCOPE_LOGS, M_LOG_RECORD,
    M_METRICS_REQUEST, M_RESOURCE_METRICS, M_SCOPE_METRICS, M_METRIC, M_GAUGE, M_SUM, M_HISTOGRAM, M_EXP_HISTOGRAM,
    M_SUMMARY, M_NUMBER_POINT, M_HISTOGRAM_POINT, M_EXP_HISTOGRAM_POINT, M_EXP_BUCKETS, M_SUMMARY_POINT, M_QUANTILE,
    M_EXEMPLAR, M_COUNT
};

#define MAX_FIELD 16
/* singular: a non-repeated message field (protobuf merges its occurrences); an OTLP message has at most
   two (an exponential histogram point's positive and negative buckets), or one oneof with message members
   (AnyValue: array_value and kvlist_value; Metric: its data, all five members messages). */
typedef struct { uint8_t kind; uint8_t child; uint8_t singular; } FieldInfo;
typedef struct { FieldInfo fields[MAX_FIELD + 1]; uint8_t is_item; const char *name; size_t size; } MessageInfo;

#define MSG(id) [id] = { .fields =
#define S(n) [n] = { F_STRING, 0, 0 }
#define B(n) [n] = { F_BYTES, 0, 0 }
#define V(n) [n] = { F_VARINT, 0, 0 }
#define F64(n) [n] = { F_I64, 0, 0 }
#define F32(n) [n] = { F_I32, 0, 0 }
#define M(n, c) [n] = { F_MESSAGE, c, 0 }
#define M1(n, c) [n] = { F_MESSAGE, c, 1 }
#define A(n) [n] = { F_ATTRIBUTES, M_KEY_VALUE, 0 }
#define TID(n) [n] = { F_TRACE_ID, 0, 0 }
#define SID(n) [n] = { F_SPAN_ID, 0, 0 }
#define P64(n) [n] = { F_PACKED_I64, 0, 0 }
#define PV(n) [n] = { F_PACKED_VARINT, 0, 0 }

static const MessageInfo schema[M_COUNT] = {
    MSG(M_TRACE_REQUEST) { M(1, M_RESOURCE_SPANS) },
        .size = sizeof(Opentelemetry__Proto__Collector__Trace__V1__ExportTraceServiceRequest) },
    MSG(M_RESOURCE_SPANS) { M1(1, M_RESOURCE), M(2, M_SCOPE_SPANS), S(3) },
        .size = sizeof(Opentelemetry__Proto__Trace__V1__ResourceSpans) },
    MSG(M_SCOPE_SPANS) { M1(1, M_SCOPE), M(2, M_SPAN), S(3) },
        .size = sizeof(Opentelemetry__Proto__Trace__V1__ScopeSpans) },
    MSG(M_SPAN) { TID(1), SID(2), S(3), SID(4), S(5), V(6), F64(7), F64(8), A(9), V(10),
                  M(11, M_EVENT), V(12), M(13, M_LINK), V(14), M1(15, M_STATUS), F32(16) }, .is_item = 1, .name = "span",
        .size = sizeof(Opentelemetry__Proto__Trace__V1__Span) },
    MSG(M_EVENT) { F64(1), S(2), A(3), V(4) }, .name = "span event",
        .size = sizeof(Opentelemetry__Proto__Trace__V1__Span__Event) },
    MSG(M_LINK) { TID(1), SID(2), S(3), A(4), V(5), F32(6) }, .name = "span link",
        .size = sizeof(Opentelemetry__Proto__Trace__V1__Span__Link) },
    MSG(M_STATUS) { S(2), V(3) },
        .size = sizeof(Opentelemetry__Proto__Trace__V1__Status) },
    MSG(M_RESOURCE) { A(1), V(2), M(3, M_ENTITY_REF) }, .name = "resource",
        .size = sizeof(Opentelemetry__Proto__Resource__V1__Resource) },
    MSG(M_ENTITY_REF) { S(1), S(2), S(3), S(4) },
        .size = sizeof(Opentelemetry__Proto__Common__V1__EntityRef) },
    MSG(M_SCOPE) { S(1), S(2), A(3), V(4) }, .name = "instrumentation scope",
        .size = sizeof(Opentelemetry__Proto__Common__V1__InstrumentationScope) },
    MSG(M_KEY_VALUE) { S(1), M1(2, M_ANY_VALUE), V(3) },
        .size = sizeof(Opentelemetry__Proto__Common__V1__KeyValue) },
    MSG(M_ANY_VALUE) { S(1), V(2), V(3), F64(4), M1(5, M_ARRAY_VALUE), M1(6, M_KV_LIST), B(7), V(8) },
        .size = sizeof(Opentelemetry__Proto__Common__V1__AnyValue) },
    MSG(M_ARRAY_VALUE) { M(1, M_ANY_VALUE) },
        .size = sizeof(Opentelemetry__Proto__Common__V1__ArrayValue) },
    MSG(M_KV_LIST) { M(1, M_KEY_VALUE) },
        .size = sizeof(Opentelemetry__Proto__Common__V1__KeyValueList) },
    MSG(M_LOGS_REQUEST) { M(1, M_RESOURCE_LOGS) },
        .size = sizeof(Opentelemetry__Proto__Collector__Logs__V1__ExportLogsServiceRequest) },
    MSG(M_RESOURCE_LOGS) { M1(1, M_RESOURCE), M(2, M_SCOPE_LOGS), S(3) },
        .size = sizeof(Opentelemetry__Proto__Logs__V1__ResourceLogs) },
    MSG(M_SCOPE_LOGS) { M1(1, M_SCOPE), M(2, M_LOG_RECORD), S(3) },
        .size = sizeof(Opentelemetry__Proto__Logs__V1__ScopeLogs) },
    MSG(M_LOG_RECORD) { F64(1), V(2), S(3), M1(5, M_ANY_VALUE), A(6), V(7), F32(8), TID(9), SID(10),
                        F64(11), S(12) }, .is_item = 1, .name = "log record",
        .size = sizeof(Opentelemetry__Proto__Logs__V1__LogRecord) },
    /* Metrics: read for the signal's evidence and its limits (metrics/v1/metrics.proto); items are metrics. */
    MSG(M_METRICS_REQUEST) { M(1, M_RESOURCE_METRICS) },
        .size = sizeof(Opentelemetry__Proto__Collector__Metrics__V1__ExportMetricsServiceRequest) },
    MSG(M_RESOURCE_METRICS) { M1(1, M_RESOURCE), M(2, M_SCOPE_METRICS), S(3) },
        .size = sizeof(Opentelemetry__Proto__Metrics__V1__ResourceMetrics) },
    MSG(M_SCOPE_METRICS) { M1(1, M_SCOPE), M(2, M_METRIC), S(3) },
        .size = sizeof(Opentelemetry__Proto__Metrics__V1__ScopeMetrics) },
    MSG(M_METRIC) { S(1), S(2), S(3), M1(5, M_GAUGE), M1(7, M_SUM), M1(9, M_HISTOGRAM), M1(10, M_EXP_HISTOGRAM),
                    M1(11, M_SUMMARY), A(12) }, .is_item = 1, .name = "metric",
        .size = sizeof(Opentelemetry__Proto__Metrics__V1__Metric) },
    MSG(M_GAUGE) { M(1, M_NUMBER_POINT) },
        .size = sizeof(Opentelemetry__Proto__Metrics__V1__Gauge) },
    MSG(M_SUM) { M(1, M_NUMBER_POINT), V(2), V(3) },
        .size = sizeof(Opentelemetry__Proto__Metrics__V1__Sum) },
    MSG(M_HISTOGRAM) { M(1, M_HISTOGRAM_POINT), V(2) },
        .size = sizeof(Opentelemetry__Proto__Metrics__V1__Histogram) },
    MSG(M_EXP_HISTOGRAM) { M(1, M_EXP_HISTOGRAM_POINT), V(2) },
        .size = sizeof(Opentelemetry__Proto__Metrics__V1__ExponentialHistogram) },
    MSG(M_SUMMARY) { M(1, M_SUMMARY_POINT) },
        .size = sizeof(Opentelemetry__Proto__Metrics__V1__Summary) },
    MSG(M_NUMBER_POINT) { F64(2), F64(3), F64(4), M(5, M_EXEMPLAR), F64(6), A(7), V(8) }, .name = "number data point",
        .size = sizeof(Opentelemetry__Proto__Metrics__V1__NumberDataPoint) },
    MSG(M_HISTOGRAM_POINT) { F64(2), F64(3), F64(4), F64(5), P64(6), P64(7), M(8, M_EXEMPLAR), A(9), V(10), F64(11),
                             F64(12) }, .name = "histogram data point",
        .size = sizeof(Opentelemetry__Proto__Metrics__V1__HistogramDataPoint) },
    MSG(M_EXP_HISTOGRAM_POINT) { A(1), F64(2), F64(3), F64(4), F64(5), V(6), F64(7), M1(8, M_EXP_BUCKETS),
                                 M1(9, M_EXP_BUCKETS), V(10), M(11, M_EXEMPLAR), F64(12), F64(13), F64(14) },
        .name = "exponential histogram data point",
        .size = sizeof(Opentelemetry__Proto__Metrics__V1__ExponentialHistogramDataPoint) },
    MSG(M_EXP_BUCKETS) { V(1), PV(2) },
        .size = sizeof(Opentelemetry__Proto__Metrics__V1__ExponentialHistogramDataPoint__Buckets) },
    MSG(M_SUMMARY_POINT) { F64(2), F64(3), F64(4), F64(5), M(6, M_QUANTILE), A(7), V(8) }, .name = "summary data point",
        .size = sizeof(Opentelemetry__Proto__Metrics__V1__SummaryDataPoint) },
    MSG(M_QUANTILE) { F64(1), F64(2) },
        .size = sizeof(Opentelemetry__Proto__Metrics__V1__SummaryDataPoint__ValueAtQuantile) },
    MSG(M_EXEMPLAR) { F64(2), F64(3), SID(4), TID(5), F64(6), A(7) }, .name = "exemplar",
        .size = sizeof(Opentelemetry__Proto__Metrics__V1__Exemplar) },
};

/* The AnyValue oneof covers all of its fields (1-8). */
#define ANY_VALUE_ONEOF_LAST 8

/* Whether field `number` of `type` is a member of a oneof that has message members, which protobuf-c 1.4.1
   replaces instead of merging: AnyValue's value (1-8) and Metric's data (gauge 5, sum 7, histogram 9,
   exponential_histogram 10, summary 11). Scalar-only oneofs (a data point's value) need no merge. */
static int in_message_oneof(int type, uint64_t number) {
    if (type == M_ANY_VALUE) return number >= 1 && number <= ANY_VALUE_ONEOF_LAST;
    if (type == M_METRIC) return number == 5 || number == 7 || number == 9 || number == 10 || number == 11;
    return 0;
}

/* Names an ID field for BAD_ID_LENGTH: the message it is in and the field. */
static const char *id_field_name(uint8_t type, uint64_t number) {
    switch (type) {
    case M_SPAN: return number == 1 ? "span trace_id" : number == 2 ? "span span_id" : "span parent_span_id";
    case M_LINK: return number == 1 ? "span link trace_id" : "span link span_id";
    case M_EXEMPLAR: return number == 5 ? "exemplar trace_id" : "exemplar span_id";
    default: return number == 9 ? "log record trace_id" : "log record span_id";
    }
}

static int expected_wire_type(uint8_t kind) {
    switch (kind) {
    case F_VARINT: return WT_VARINT;
    case F_I64: return WT_I64;
    case F_I32: return WT_I32;
    default: return WT_LEN;
    }
}

/* Whether `wire` is a valid encoding of a field of `kind`: its own wire type, or for a repeated scalar either
   the packed form or one element. */
static int wire_matches(uint8_t kind, int wire) {
    if (kind == F_PACKED_I64) return wire == WT_LEN || wire == WT_I64;
    if (kind == F_PACKED_VARINT) return wire == WT_LEN || wire == WT_VARINT;
    return expected_wire_type(kind) == wire;
}

/* The wire types a field of `kind` accepts, one bit each (none for F_NONE). */
static uint8_t wire_types(uint8_t kind) {
    if (kind == F_NONE) return 0;
    uint8_t mask = 0;
    for (int wire = WT_VARINT; wire <= WT_I32; wire++)
        if (wire_matches(kind, wire)) mask |= (uint8_t)(1u << wire);
    return mask;
}

/* A schema entry as the scan loop reads it. */
typedef struct { uint8_t kind; uint8_t child; uint8_t once; uint8_t wire_types; } FastField;
/* FastField.once: how protobuf merges repeated occurrences of the field. */
enum { ONCE_NOT = 0, ONCE_SINGULAR = 1 /* a singular message field */, ONCE_ONEOF_MEMBER = 2 /* a member of a oneof with message members (in_message_oneof) */ };

/* The schema's entry for field `number` of `type` when the wire type matches; NULL for unknown fields. */
static const FieldInfo *field_info(int type, uint64_t number, int wire) {
    if (number == 0 || number > MAX_FIELD) return NULL;
    const FieldInfo *info = &schema[type].fields[number];
    if (info->kind == F_NONE || !wire_matches(info->kind, wire)) return NULL;
    return info;
}

/* Reads a varint of at most `max_bytes` bytes. Returns 0 on truncation or overlong. */
static int read_varint_slow(const uint8_t *data, size_t *pos, size_t end, uint64_t *value, int max_bytes) {
    uint64_t v = 0;
    for (int shift = 0, i = 0; i < max_bytes; i++, shift += 7) {
        if (*pos >= end) return 0;
        uint8_t b = data[(*pos)++];
        v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) { *value = v; return 1; }
    }
    return 0;
}

/* A varint value (wire type 0, a packed element): at most 10 bytes, as protobuf-c reads them. The one-byte case
   (most values) inline. */
static inline __attribute__((always_inline)) int read_varint(const uint8_t *data, size_t *pos, size_t end, uint64_t *value) {
    size_t p = *pos;
    if (p < end && data[p] < 0x80) {
        *value = data[p];
        *pos = p + 1;
        return 1;
    }
    return read_varint_slow(data, pos, end, value, 10);
}

/* A tag or a length prefix: at most 5 bytes. protobuf-c 1.4.1 reads both so (parse_tag_and_wiretype,
   scan_length_prefixed_data) and refuses a longer one, even one with a small value (an overlong encoding such
   as 0x82 0x80 0x80 0x80 0x80 0x00): the scan refuses what unpack would. */
static inline __attribute__((always_inline)) int read_prefix(const uint8_t *data, size_t *pos, size_t end, uint64_t *value) {
    size_t p = *pos;
    if (p < end && data[p] < 0x80) {
        *value = data[p];
        *pos = p + 1;
        return 1;
    }
    return read_varint_slow(data, pos, end, value, 5);
}

/* a + b, or SIZE_MAX when that does not fit: estimates saturate instead of wrapping. */
static size_t add_sat(size_t a, size_t b) {
    size_t sum;
    return __builtin_add_overflow(a, b, &sum) ? SIZE_MAX : sum;
}

static size_t mul_sat(size_t a, size_t b) {
    size_t product;
    return __builtin_mul_overflow(a, b, &product) ? SIZE_MAX : product;
}

/* Whether n bytes at p are whole varints of at most 10 bytes each, as protobuf-c unpacks a packed run of them
   (scan_varint: a varint that does not end within 10 bytes, or within the run, fails the unpack). */
static int packed_varints_whole(const uint8_t *p, size_t n) {
    size_t continued = 0; /* bytes of the current varint so far, all with the continuation bit */
    for (size_t i = 0; i < n; i++) {
        if (p[i] & 0x80) {
            if (++continued >= 10) return 0;
        } else {
            continued = 0;
        }
    }
    return continued == 0;
}

/* The most fields (known or not) protobuf-c 1.4.1 unpacks in one message: its "scanned member" slabs, 16 entries
   doubling 22 times (MAX_SCANNED_MEMBER_SLAB), hold 16 * (2^23 - 1); one more fails the unpack ("too many
   fields"). A message needs 2 bytes a field, so only records of over 256 MiB can reach it. */
#define UNPACK_MAX_FIELDS ((size_t)16 * ((1u << 23) - 1))

typedef struct { uint8_t type; size_t attributes; size_t fields; size_t end; uint32_t singular_seen; uint8_t oneof_seen; } Frame;

/*
 * What protobuf-c 1.4.1's unpack allocates, estimated as the scan goes: each message's struct plus its
 * slot in a pointer array, a copy of every bytes/string field, 32 bytes plus a copy per unknown field, and
 * for a message of more than 16 fields the "scanned member" slabs unpack keeps while it works (up to
 * two 32-byte entries per field; with an arena allocator they are freed only with everything else).
 */
#define ALIGN8(n) (((n) + 7) & ~(size_t)7)
#define SLAB_BYTES_PER_FIELD 64
#define UNKNOWN_FIELD_BYTES 32 /* its entry (24) plus the copy of a scalar, or of a length prefix */

/* What the Swift model takes for one message of `type`. */
static size_t model_message_bytes(const COTLPShims_ModelCosts *costs, int type) {
    if (!costs) return 0;
    switch (type) {
    case M_RESOURCE_SPANS: case M_RESOURCE_LOGS: return costs->resource_group;
    case M_SCOPE_SPANS: case M_SCOPE_LOGS: return costs->scope_group;
    case M_SPAN: return costs->span;
    case M_EVENT: return costs->span_event;
    case M_LINK: return costs->span_link;
    case M_LOG_RECORD: return costs->log_record;
    case M_KEY_VALUE: return costs->key_value;
    case M_ANY_VALUE: return costs->any_value;
    case M_ENTITY_REF: return costs->entity_ref;
    case M_RESOURCE_METRICS: return costs->resource_group;
    case M_SCOPE_METRICS: return costs->scope_group;
    case M_METRIC: return costs->metric;
    case M_NUMBER_POINT: return costs->number_point;
    case M_HISTOGRAM_POINT: return costs->histogram_point;
    case M_EXP_HISTOGRAM_POINT: return costs->exponential_histogram_point;
    case M_SUMMARY_POINT: return costs->summary_point;
    case M_EXEMPLAR: return costs->exemplar;
    default: return costs->other;
    }
}

/* What unpack takes for one message of `type` below the request: its struct and its slot in a pointer array. */
static size_t message_unpacked_bytes(int type) { return ALIGN8(schema[type].size) + sizeof(void *); }

/* Per message type and field number, what the scan loop needs of `schema` in 4 bytes, with the wire types the
   field accepts as a mask; and per message type what unpack takes (message_unpacked_bytes). Both depend on the
   schema alone: built once per process (they were rebuilt on every scan, 34 x 17 entries, for every record). */
static FastField fast_fields[M_COUNT][MAX_FIELD + 1];
static size_t unpacked_costs[M_COUNT];
static pthread_once_t fast_tables_once = PTHREAD_ONCE_INIT;

static void build_fast_tables(void) {
    for (int type = 0; type < M_COUNT; type++) {
        unpacked_costs[type] = message_unpacked_bytes(type);
        for (int number = 0; number <= MAX_FIELD; number++) {
            const FieldInfo *info = &schema[type].fields[number];
            uint8_t once = info->kind == F_NONE ? ONCE_NOT
                : in_message_oneof(type, (uint64_t)number) ? ONCE_ONEOF_MEMBER
                : info->singular ? ONCE_SINGULAR : ONCE_NOT;
            fast_fields[type][number] = (FastField){ info->kind, info->child, once, wire_types(info->kind) };
        }
    }
}

size_t COTLPShims_estimate_census(const COTLPShims_Census *census, int kind, const COTLPShims_ModelCosts *costs) {
    if (kind != COTLPSHIMS_KIND_TRACES && kind != COTLPSHIMS_KIND_LOGS) return SIZE_MAX;
    const int logs = kind == COTLPSHIMS_KIND_LOGS;
    const struct { int type; size_t count; } messages[] = {
        { logs ? M_RESOURCE_LOGS : M_RESOURCE_SPANS, census->resource_groups },
        { logs ? M_SCOPE_LOGS : M_SCOPE_SPANS, census->scope_groups },
        { M_SPAN, census->spans }, { M_EVENT, census->span_events }, { M_LINK, census->span_links },
        { M_STATUS, census->statuses }, { M_RESOURCE, census->resources }, { M_ENTITY_REF, census->entity_refs },
        { M_SCOPE, census->scopes }, { M_KEY_VALUE, census->key_values }, { M_ANY_VALUE, census->any_values },
        { M_ARRAY_VALUE, census->array_values }, { M_KV_LIST, census->kv_lists }, { M_LOG_RECORD, census->log_records },
    };
    /* As the scan counts: the request's struct, then each message, field and slab as it is met. */
    size_t unpacked = ALIGN8(schema[logs ? M_LOGS_REQUEST : M_TRACE_REQUEST].size), model = 0;
    for (size_t index = 0; index < sizeof(messages) / sizeof(messages[0]); index++) {
        unpacked = add_sat(unpacked, mul_sat(messages[index].count, message_unpacked_bytes(messages[index].type)));
        model = add_sat(model, mul_sat(messages[index].count, model_message_bytes(costs, messages[index].type)));
    }
    unpacked = add_sat(unpacked, census->len_fields_unpacked);
    unpacked = add_sat(unpacked, mul_sat(SLAB_BYTES_PER_FIELD, census->slab_fields));
    if (costs) {
        model = add_sat(model, census->long_field_bytes);
        model = add_sat(model, mul_sat(census->long_fields, costs->heap_string_overhead));
    }
    return add_sat(unpacked, model);
}

/* Whether s[0..<n] is valid UTF-8, ASCII checked first (most strings are). */
static inline __attribute__((always_inline)) int utf8_ok(const uint8_t *s, size_t n) {
    return is_ascii(s, n) || COTLPShims_utf8_valid(s, n);
}

/*
 * A KeyValue of the common shape -- key (field 1), then value (field 2): an AnyValue holding exactly one
 * string, bool, int or double member -- checked and counted in one step instead of two message levels and
 * four fields of the scan loop (most of a span's or log record's bytes are such attributes). `p[0..<len]` is the KeyValue's body, at message level `kv_depth`. On
 * success, adds to *unpacked, *model and *max_depth_seen exactly what the loop would add for it, field by
 * field, and returns 1. Returns 0, changing nothing, for any other shape, any fault, or when the sizes would
 * pass `max_unpacked_bytes` (the sums only grow, so the loop finds the first field over the limit): the loop
 * then reads it the long way and reports a fault where it lies, as it always did.
 */
static inline __attribute__((always_inline)) int scan_key_value_fast(
    const uint8_t *p, size_t len, size_t kv_depth, size_t max_depth, const size_t *unpacked_cost, const size_t *model_cost,
    size_t inline_string_bytes, size_t heap_string_overhead, size_t max_unpacked_bytes, size_t *unpacked, size_t *model,
    size_t *max_depth_seen) {
    if (kv_depth + 1 > max_depth || len < 3 || p[0] != 0x0A) return 0;
    size_t pos = 1;
    uint64_t key_len;
    if (!read_prefix(p, &pos, len, &key_len) || key_len > len - pos) return 0;
    const uint8_t *key = p + pos;
    pos += (size_t)key_len;
    if (len - pos < 3 || p[pos] != 0x12) return 0;
    pos++;
    uint64_t value_len;
    if (!read_prefix(p, &pos, len, &value_len) || value_len != len - pos || value_len < 2) return 0;
    /* The AnyValue: one member, its tag in one byte, ending where the KeyValue ends. */
    const uint8_t tag = p[pos++];
    size_t string_len = 0;
    int has_string = 0;
    uint64_t scalar;
    switch (tag) {
    case 0x0A: { /* string_value */
        uint64_t n;
        if (!read_prefix(p, &pos, len, &n) || n != len - pos || !utf8_ok(p + pos, (size_t)n)) return 0;
        string_len = (size_t)n;
        has_string = 1;
        break;
    }
    case 0x10: /* bool_value */
    case 0x18: /* int_value */
        if (!read_varint(p, &pos, len, &scalar) || pos != len) return 0;
        break;
    case 0x21: /* double_value */
        if (len - pos != 8) return 0;
        break;
    default:
        return 0;
    }
    if (!utf8_ok(key, (size_t)key_len)) return 0;
    /* As the loop adds them: the KeyValue, its key, the AnyValue, the string (saturating sums of sizes that
       only grow are the same in any order). */
    size_t add_unpacked = add_sat(add_sat(unpacked_cost[M_KEY_VALUE], COTLPShims_len_field_unpacked_bytes((size_t)key_len)),
                                  unpacked_cost[M_ANY_VALUE]);
    size_t add_model = add_sat(model_cost[M_KEY_VALUE], model_cost[M_ANY_VALUE]);
    if (key_len > inline_string_bytes) add_model = add_sat(add_model, add_sat((size_t)key_len, heap_string_overhead));
    if (has_string) {
        add_unpacked = add_sat(add_unpacked, COTLPShims_len_field_unpacked_bytes(string_len));
        if (string_len > inline_string_bytes) add_model = add_sat(add_model, add_sat(string_len, heap_string_overhead));
    }
    size_t new_unpacked = add_sat(*unpacked, add_unpacked), new_model = add_sat(*model, add_model);
    if (add_sat(new_unpacked, new_model) > max_unpacked_bytes) return 0;
    *unpacked = new_unpacked;
    *model = new_model;
    if (kv_depth + 1 > *max_depth_seen) *max_depth_seen = kv_depth + 1;
    return 1;
}

#define FAIL(code, at) do { result->status = (code); result->error_offset = (at); goto done; } while (0)
#define STACK_INLINE 128
#define OVER_LIMIT() (add_sat(unpacked, model) > max_unpacked_bytes)

/* The scan; `quick` turns on the shortcuts for common fields (off: COTLPShims_scan_long_way). */
static inline __attribute__((always_inline)) void scan(const uint8_t *data, size_t length, int kind,
                                                        const COTLPShims_ScanLimits *limits, COTLPShims_ScanResult *result,
                                                        const int quick) {
    memset(result, 0, sizeof(*result));
    const size_t max_depth = limits->max_depth < COTLPSHIMS_MAX_DEPTH ? limits->max_depth : COTLPSHIMS_MAX_DEPTH;
    const size_t max_attributes = limits->max_attributes;
    const size_t max_unpacked_bytes = limits->max_unpacked_bytes;
    const COTLPShims_ModelCosts *costs = limits->model_costs;
    Frame inline_stack[STACK_INLINE];
    Frame *stack = inline_stack;
    /* groups nest in unknown fields only; their field numbers must balance */
    uint32_t groups[STACK_INLINE];
    size_t group_depth = 0;
    /* Each nested message takes at least 2 bytes (tag and length), so no more than length / 2 levels. */
    size_t levels = max_depth < length / 2 ? max_depth : length / 2;
    size_t capacity = levels + 2;
    if (capacity > STACK_INLINE) {
        size_t bytes;
        if (__builtin_mul_overflow(capacity, sizeof(Frame), &bytes)) { result->status = COTLPSHIMS_SCAN_TOO_DEEP; return; }
        stack = malloc(bytes);
        if (!stack) { result->status = COTLPSHIMS_SCAN_TOO_DEEP; return; }
    }
    /* Per message type, what unpack (its struct and pointer slot) and the model take: the model's costs
       looked up once per scan (they come with the limits), unpack's built once per process. */
    pthread_once(&fast_tables_once, build_fast_tables);
    const size_t *unpacked_cost = unpacked_costs;
    size_t model_cost[M_COUNT];
    for (int type = 0; type < M_COUNT; type++) model_cost[type] = model_message_bytes(costs, type);
    const FastField (*fast)[MAX_FIELD + 1] = fast_fields;
    const size_t inline_string_bytes = costs ? costs->inline_string_bytes : SIZE_MAX;
    const size_t heap_string_overhead = costs ? costs->heap_string_overhead : 0;
    size_t depth = 0;
    size_t pos = 0;
    memset(&stack[0], 0, sizeof(Frame));
    stack[0].type = kind == COTLPSHIMS_KIND_LOGS ? M_LOGS_REQUEST : kind == COTLPSHIMS_KIND_METRICS ? M_METRICS_REQUEST : M_TRACE_REQUEST;
    stack[0].end = length;
    /* The estimates, kept in locals while the loop runs (stored into `result` at the end). */
    size_t unpacked = ALIGN8(schema[stack[0].type].size), model = 0;

    /* The current message's end and its fields' entries, kept in registers. */
    size_t end = length;
    const FastField *row = fast[stack[0].type];
    Frame *frame = &stack[0];
    for (;;) {
        if (pos == end) {
            if (group_depth > 0) FAIL(COTLPSHIMS_SCAN_MALFORMED, pos); /* unterminated group */
            if (frame->fields > UNPACK_MAX_FIELDS) FAIL(COTLPSHIMS_SCAN_TOO_MANY_FIELDS, pos);
            if (frame->fields > COTLPSHIMS_SLAB_FIELD_THRESHOLD) {
                unpacked = add_sat(unpacked, mul_sat(SLAB_BYTES_PER_FIELD, frame->fields));
                if (OVER_LIMIT()) FAIL(COTLPSHIMS_SCAN_TOO_LARGE, pos);
            }
            if (depth == 0) break;
            depth--;
            frame = &stack[depth];
            end = frame->end;
            row = fast[frame->type];
            continue;
        }
        size_t field_start = pos;
        uint64_t tag;
        if (!read_prefix(data, &pos, end, &tag)) FAIL(COTLPSHIMS_SCAN_MALFORMED, field_start);
        uint64_t number = tag >> 3;
        int wire = (int)(tag & 7);
        if (number == 0 || number > 0x1FFFFFFF) FAIL(COTLPSHIMS_SCAN_MALFORMED, field_start);

        /* The common case first: a known scalar, string, bytes or ID field with its own wire type, no merge rule,
           whose value is whole and sound. It is counted as the long way below counts it; any fault, or passing
           the size limit, leaves it to the long way, which reports it where it lies. */
        if (quick && group_depth == 0 && number <= MAX_FIELD) {
            const FastField field = row[number];
            if (field.once == ONCE_NOT && ((field.wire_types >> wire) & 1)) { /* F_NONE accepts no wire type */
                size_t q = pos;
                uint64_t value;
                switch (field.kind) {
                case F_VARINT:
                    if (!read_varint(data, &q, end, &value)) break;
                    frame->fields++;
                    pos = q;
                    continue;
                case F_I64:
                    if (end - q < 8) break;
                    frame->fields++;
                    pos = q + 8;
                    continue;
                case F_I32:
                    if (end - q < 4) break;
                    frame->fields++;
                    pos = q + 4;
                    continue;
                case F_STRING:
                case F_BYTES:
                case F_TRACE_ID:
                case F_SPAN_ID: {
                    if (!read_prefix(data, &q, end, &value) || value > end - q) break;
                    const size_t n = (size_t)value;
                    if (field.kind == F_STRING && !utf8_ok(data + q, n)) break;
                    if (field.kind == F_TRACE_ID && n != 0 && n != 16) break;
                    if (field.kind == F_SPAN_ID && n != 0 && n != 8) break;
                    size_t new_unpacked = add_sat(unpacked, COTLPShims_len_field_unpacked_bytes(n)), new_model = model;
                    if (n > inline_string_bytes) new_model = add_sat(model, add_sat(n, heap_string_overhead));
                    if (add_sat(new_unpacked, new_model) > max_unpacked_bytes) break;
                    unpacked = new_unpacked;
                    model = new_model;
                    frame->fields++;
                    pos = q + n;
                    continue;
                }
                case F_ATTRIBUTES:
                    if (!read_prefix(data, &q, end, &value) || value > end - q || frame->attributes + 1 > max_attributes)
                        break;
                    if (depth + 1 > max_depth
                        || !scan_key_value_fast(data + q, (size_t)value, depth + 1, max_depth, unpacked_cost, model_cost,
                                                inline_string_bytes, heap_string_overhead, max_unpacked_bytes, &unpacked,
                                                &model, &result->max_depth_seen))
                        break;
                    frame->attributes++;
                    frame->fields++;
                    pos = q + (size_t)value;
                    continue;
                case F_MESSAGE: {
                    if (!read_prefix(data, &q, end, &value) || value > end - q || depth + 1 > max_depth) break;
                    size_t new_unpacked = add_sat(unpacked, unpacked_cost[field.child]);
                    size_t new_model = add_sat(model, model_cost[field.child]);
                    if (add_sat(new_unpacked, new_model) > max_unpacked_bytes) break;
                    unpacked = new_unpacked;
                    model = new_model;
                    if (schema[field.child].is_item) result->items++;
                    frame->fields++;
                    depth++;
                    frame = &stack[depth];
                    memset(frame, 0, sizeof(Frame));
                    frame->type = field.child;
                    pos = q;
                    end = frame->end = q + (size_t)value;
                    row = fast[field.child];
                    if (depth > result->max_depth_seen) result->max_depth_seen = depth;
                    continue;
                }
                default: /* packed scalars: the long way */
                    break;
                }
            }
        }

        FastField field = { F_NONE, 0, 0, 0 };
        if (group_depth == 0 && number <= MAX_FIELD) field = row[number];
        int known = field.kind != F_NONE;
        if (known && !((field.wire_types >> wire) & 1)) {
            /* The reference treats a known field with another wire type as unknown; protobuf-c rejects it. */
            known = 0;
            field.once = ONCE_NOT;
            result->status = COTLPSHIMS_SCAN_UNSUPPORTED;
            if (result->error_offset == 0) result->error_offset = field_start;
        }
        if (!known && group_depth == 0 && wire != WT_EGROUP) {
            result->unknown_fields++;
            unpacked = add_sat(unpacked, UNKNOWN_FIELD_BYTES);
        }
        if (group_depth == 0) frame->fields++;
        if (field.once == ONCE_ONEOF_MEMBER) {
            /* A oneof seen twice where a message member is involved: protobuf-c would not merge it right. */
            if (frame->oneof_seen && (frame->oneof_seen == 2 || field.kind == F_MESSAGE)) result->needs_merge = 1;
            frame->oneof_seen = field.kind == F_MESSAGE || frame->oneof_seen == 2 ? 2 : 1;
        } else if (field.once == ONCE_SINGULAR) {
            if (frame->singular_seen & (1u << number)) result->needs_merge = 1;
            frame->singular_seen |= 1u << number;
        }

        /* One element of a repeated scalar (bucket counts, bounds) sent unpacked: 8 bytes in protobuf-c's array
           and in the model's. */
        if (known && (field.kind == F_PACKED_I64 || field.kind == F_PACKED_VARINT) && wire != WT_LEN) {
            unpacked = add_sat(unpacked, 8);
            if (costs) model = add_sat(model, 8);
            if (OVER_LIMIT()) FAIL(COTLPSHIMS_SCAN_TOO_LARGE, field_start);
        }
        uint64_t len;
        switch (wire) {
        case WT_VARINT:
            if (!read_varint(data, &pos, end, &len)) FAIL(COTLPSHIMS_SCAN_MALFORMED, field_start);
            break;
        case WT_I64:
            if (end - pos < 8) FAIL(COTLPSHIMS_SCAN_MALFORMED, field_start);
            pos += 8;
            break;
        case WT_I32:
            if (end - pos < 4) FAIL(COTLPSHIMS_SCAN_MALFORMED, field_start);
            pos += 4;
            break;
        case WT_LEN:
            if (!read_prefix(data, &pos, end, &len) || len > end - pos)
                FAIL(COTLPSHIMS_SCAN_MALFORMED, field_start);
            if (known && (field.kind == F_MESSAGE || field.kind == F_ATTRIBUTES)) {
                if (field.kind == F_ATTRIBUTES && ++frame->attributes > max_attributes) {
                    result->error_message = schema[frame->type].name;
                    FAIL(COTLPSHIMS_SCAN_TOO_MANY_ATTRIBUTES, field_start);
                }
                if (depth + 1 > max_depth) FAIL(COTLPSHIMS_SCAN_TOO_DEEP, field_start);
                if (schema[field.child].is_item) result->items++;
                unpacked = add_sat(unpacked, unpacked_cost[field.child]);
                model = add_sat(model, model_cost[field.child]);
                if (OVER_LIMIT()) FAIL(COTLPSHIMS_SCAN_TOO_LARGE, field_start);
                depth++;
                memset(&stack[depth], 0, sizeof(Frame));
                stack[depth].type = field.child;
                stack[depth].end = pos + (size_t)len;
                frame = &stack[depth];
                end = pos + (size_t)len;
                row = fast[field.child];
                if (depth > result->max_depth_seen) result->max_depth_seen = depth;
                continue;
            }
            if (known && (field.kind == F_TRACE_ID || field.kind == F_SPAN_ID) && len != 0
                && len != (field.kind == F_TRACE_ID ? 16 : 8)) {
                result->error_message = id_field_name(frame->type, number);
                result->error_length = (size_t)len;
                FAIL(COTLPSHIMS_SCAN_BAD_ID_LENGTH, field_start);
            }
            if (known && field.kind == F_STRING && !is_ascii(data + pos, (size_t)len) && !COTLPShims_utf8_valid(data + pos, (size_t)len))
                FAIL(COTLPSHIMS_SCAN_INVALID_UTF8, field_start);
            /* protobuf-c refuses a packed run of 8-byte values whose length is not a multiple of 8
               (count_packed_elements), and one of varints that ends inside a varint or holds one of more than
               10 bytes (parse_packed_repeated_member). */
            if (known && field.kind == F_PACKED_I64 && len % 8 != 0) FAIL(COTLPSHIMS_SCAN_MALFORMED, field_start);
            if (known && field.kind == F_PACKED_VARINT && !packed_varints_whole(data + pos, (size_t)len))
                FAIL(COTLPSHIMS_SCAN_MALFORMED, field_start);
            if (group_depth == 0 && known && (field.kind == F_PACKED_I64 || field.kind == F_PACKED_VARINT)) {
                /* Packed: every element (a varint takes 1 to 10 bytes) is 8 bytes in protobuf-c's array and the model's. */
                size_t elements = field.kind == F_PACKED_I64 ? (size_t)len / 8 : (size_t)len;
                unpacked = add_sat(unpacked, mul_sat(elements, 8));
                if (costs) model = add_sat(model, add_sat(mul_sat(elements, 8), heap_string_overhead));
                if (OVER_LIMIT()) FAIL(COTLPSHIMS_SCAN_TOO_LARGE, field_start);
            } else if (group_depth == 0) {
                unpacked = add_sat(unpacked, COTLPShims_len_field_unpacked_bytes((size_t)len));
                if (known && len > inline_string_bytes)
                    model = add_sat(model, add_sat((size_t)len, heap_string_overhead));
                if (OVER_LIMIT()) FAIL(COTLPSHIMS_SCAN_TOO_LARGE, field_start);
            }
            pos += (size_t)len;
            break;
        case WT_SGROUP:
            if (group_depth >= STACK_INLINE) FAIL(COTLPSHIMS_SCAN_TOO_DEEP, field_start);
            groups[group_depth++] = (uint32_t)number;
            if (result->status == COTLPSHIMS_SCAN_OK) { result->status = COTLPSHIMS_SCAN_UNSUPPORTED; result->error_offset = field_start; }
            break;
        case WT_EGROUP:
            if (group_depth == 0 || groups[group_depth - 1] != (uint32_t)number) FAIL(COTLPSHIMS_SCAN_MALFORMED, field_start);
            group_depth--;
            break;
        default:
            FAIL(COTLPSHIMS_SCAN_MALFORMED, field_start);
        }
    }
done:
    result->unpacked_bytes = unpacked;
    result->model_bytes = model;
    if (stack != inline_stack) free(stack);
}

void COTLPShims_scan(const uint8_t *data, size_t length, int kind, const COTLPShims_ScanLimits *limits,
                     COTLPShims_ScanResult *result) {
    scan(data, length, kind, limits, result, 1);
}

void COTLPShims_scan_long_way(const uint8_t *data, size_t length, int kind, const COTLPShims_ScanLimits *limits,
                              COTLPShims_ScanResult *result) {
    scan(data, length, kind, limits, result, 0);
}

/* ==== merging ========================================================== */

typedef struct { const uint8_t *data; size_t len; } Slice;
typedef struct { Slice *items; size_t count, capacity; } SliceList;

#define MERGE_FAILED ((size_t)-1)
/* The merge recurses once per message level (about 200 bytes of stack each); the Swift API's nesting limit is 128. */
#define MERGE_MAX_DEPTH 256

static int slices_append(SliceList *list, const uint8_t *data, size_t len) {
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity : 4, bytes;
        if (list->capacity && __builtin_mul_overflow(capacity, (size_t)2, &capacity)) return 0;
        if (__builtin_mul_overflow(capacity, sizeof(Slice), &bytes)) return 0;
        Slice *items = realloc(list->items, bytes);
        if (!items) return 0;
        list->items = items;
        list->capacity = capacity;
    }
    list->items[list->count].data = data;
    list->items[list->count].len = len;
    list->count++;
    return 1;
}

/* The end of the output buffer: every write is checked against it (the output is never longer than the
   input, but the check costs nothing next to the copies). */
typedef struct { uint8_t *end; } MergeOutput;

static size_t merge_message(const MergeOutput *output, const Slice *slices, size_t n_slices, int type, uint8_t *out, int depth);

/* Writes field `number` holding the merge of `slices` as a message of `type`; returns the bytes written. */
static size_t put_merged_field(const MergeOutput *output, uint64_t number, const Slice *slices, size_t n_slices, int type,
                               uint8_t *out, int depth) {
    size_t upper = 0;
    for (size_t i = 0; i < n_slices; i++) upper = add_sat(upper, slices[i].len);
    size_t slot_len = varint_size(upper);
    if (upper == SIZE_MAX || (size_t)(output->end - out) < varint_size(number << 3) + slot_len) return MERGE_FAILED;
    uint8_t *p = put_varint(out, number << 3 | WT_LEN);
    size_t body = merge_message(output, slices, n_slices, type, p + slot_len, depth + 1);
    if (body == MERGE_FAILED || body > upper) return MERGE_FAILED;
    return (size_t)(p - out) + close_slot(p, slot_len, body);
}

#define MAX_SINGULAR 2 /* singular message fields of one message outside a oneof (see FieldInfo) */

static size_t merge_message(const MergeOutput *output, const Slice *slices, size_t n_slices, int type, uint8_t *out, int depth) {
    if (depth > MERGE_MAX_DEPTH) return MERGE_FAILED;
    uint8_t *p = out;
    /* occurrences of each singular message field, or (groups[0]) of the oneof's message member set last */
    SliceList groups[MAX_SINGULAR] = { { 0 }, { 0 } };
    uint64_t group_numbers[MAX_SINGULAR] = { 0, 0 };
    Slice oneof_scalar = { 0 };      /* a oneof's last scalar member, whole field */
    uint64_t oneof_number = 0;       /* the oneof member set last */
    size_t failed = 0;
    for (size_t s = 0; s < n_slices && !failed; s++) {
        const uint8_t *data = slices[s].data;
        size_t end = slices[s].len, pos = 0;
        while (pos < end) {
            size_t field_start = pos;
            uint64_t tag, len = 0;
            if (!read_prefix(data, &pos, end, &tag)) { failed = 1; break; }
            uint64_t number = tag >> 3;
            int wire = (int)(tag & 7);
            switch (wire) {
            case WT_VARINT: if (!read_varint(data, &pos, end, &len)) failed = 1; break;
            case WT_I64: if (end - pos < 8) failed = 1; else pos += 8; break;
            case WT_I32: if (end - pos < 4) failed = 1; else pos += 4; break;
            case WT_LEN:
                if (!read_prefix(data, &pos, end, &len) || len > end - pos) failed = 1;
                else pos += (size_t)len;
                break;
            default: failed = 1; /* groups were refused by the scan */
            }
            if (failed) break;
            const FieldInfo *info = field_info(type, number, wire);
            const uint8_t *payload = data + pos - (wire == WT_LEN ? (size_t)len : 0);
            if (info && in_message_oneof(type, number)) {
                if (info->kind == F_MESSAGE) {
                    if (oneof_number != number) groups[0].count = 0; /* another member was set in between: start over */
                    if (!slices_append(&groups[0], payload, (size_t)len)) { failed = 1; break; }
                    group_numbers[0] = number;
                } else {
                    oneof_scalar.data = data + field_start;
                    oneof_scalar.len = pos - field_start;
                }
                oneof_number = number;
            } else if (info && info->singular) {
                size_t g = 0;
                while (g < MAX_SINGULAR && group_numbers[g] != 0 && group_numbers[g] != number) g++;
                if (g == MAX_SINGULAR || !slices_append(&groups[g], payload, (size_t)len)) { failed = 1; break; }
                group_numbers[g] = number;
            } else if (info && (info->kind == F_MESSAGE || info->kind == F_ATTRIBUTES)) {
                Slice child = { payload, (size_t)len };
                size_t written = put_merged_field(output, number, &child, 1, info->child, p, depth);
                if (written == MERGE_FAILED) { failed = 1; break; }
                p += written;
            } else {
                if ((size_t)(output->end - p) < pos - field_start) { failed = 1; break; }
                memcpy(p, data + field_start, pos - field_start);
                p += pos - field_start;
            }
        }
    }
    if (!failed && oneof_number != 0 && oneof_number != group_numbers[0]) {
        /* the oneof ended on a scalar member */
        if ((size_t)(output->end - p) < oneof_scalar.len) failed = 1;
        else { memcpy(p, oneof_scalar.data, oneof_scalar.len); p += oneof_scalar.len; }
        groups[0].count = 0;
    }
    for (size_t g = 0; g < MAX_SINGULAR && !failed; g++) {
        if (groups[g].count == 0) continue;
        size_t written = put_merged_field(output, group_numbers[g], groups[g].items, groups[g].count,
                                          schema[type].fields[group_numbers[g]].child, p, depth);
        if (written == MERGE_FAILED) failed = 1;
        else p += written;
    }
    for (size_t g = 0; g < MAX_SINGULAR; g++) free(groups[g].items);
    return failed ? MERGE_FAILED : (size_t)(p - out);
}

size_t COTLPShims_merge(const uint8_t *data, size_t length, int kind, uint8_t *out, size_t out_capacity) {
    Slice whole = { data, length };
    MergeOutput output = { out + out_capacity };
    int type = kind == COTLPSHIMS_KIND_LOGS ? M_LOGS_REQUEST : kind == COTLPSHIMS_KIND_METRICS ? M_METRICS_REQUEST : M_TRACE_REQUEST;
    return merge_message(&output, &whole, 1, type, out, 0);
}
