/// An item type with its OTLP/JSON form: the member names of its request's envelope, and how the encoder
/// writes and the decoder reads one item. The envelope walk is written once for every request.
protocol JSONItem: OTLPRequestItem {
    /// The envelope's member names, lowerCamelCase (what the encoder writes) and snake_case (also read).
    static var jsonMembers: JSONEnvelopeMembers { get }

    /// Writes one item as a JSON object.
    static func writeJSON(_ item: Self, with encoder: OTLPJSONEncoder, to out: inout JSONOutput)

    /// Reads one item from its JSON object.
    static func readJSON(_ object: JSONObject, with decoder: OTLPJSONDecoder) throws(OTLPReadError) -> Self
}

/// The member names of one signal's request envelope in OTLP/JSON.
struct JSONEnvelopeMembers {
    var resourceGroups: StaticString
    var resourceGroupsSnakeCase: String
    var scopeGroups: StaticString
    var scopeGroupsSnakeCase: String
    var items: StaticString
    var itemsSnakeCase: String
}

extension OTLPSpan: JSONItem {
    static let jsonMembers = JSONEnvelopeMembers(
        resourceGroups: "resourceSpans", resourceGroupsSnakeCase: "resource_spans",
        scopeGroups: "scopeSpans", scopeGroupsSnakeCase: "scope_spans", items: "spans", itemsSnakeCase: "spans")

    static func writeJSON(_ item: OTLPSpan, with encoder: OTLPJSONEncoder, to out: inout JSONOutput) {
        encoder.write(item, &out)
    }

    static func readJSON(_ object: JSONObject, with decoder: OTLPJSONDecoder) throws(OTLPReadError) -> OTLPSpan {
        try decoder.span(object)
    }
}

extension OTLPLogRecord: JSONItem {
    static let jsonMembers = JSONEnvelopeMembers(
        resourceGroups: "resourceLogs", resourceGroupsSnakeCase: "resource_logs",
        scopeGroups: "scopeLogs", scopeGroupsSnakeCase: "scope_logs", items: "logRecords", itemsSnakeCase: "log_records")

    static func writeJSON(_ item: OTLPLogRecord, with encoder: OTLPJSONEncoder, to out: inout JSONOutput) {
        encoder.write(item, &out)
    }

    static func readJSON(_ object: JSONObject, with decoder: OTLPJSONDecoder) throws(OTLPReadError) -> OTLPLogRecord {
        try decoder.logRecord(object)
    }
}

extension OTLPMetric: JSONItem {
    static let jsonMembers = JSONEnvelopeMembers(
        resourceGroups: "resourceMetrics", resourceGroupsSnakeCase: "resource_metrics",
        scopeGroups: "scopeMetrics", scopeGroupsSnakeCase: "scope_metrics", items: "metrics", itemsSnakeCase: "metrics")

    static func writeJSON(_ item: OTLPMetric, with encoder: OTLPJSONEncoder, to out: inout JSONOutput) {
        encoder.write(item, &out)
    }

    static func readJSON(_ object: JSONObject, with decoder: OTLPJSONDecoder) throws(OTLPReadError) -> OTLPMetric {
        try decoder.metric(object)
    }
}
