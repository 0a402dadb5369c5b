/// Writes OTLP/JSON as the OpenTelemetry specification defines it.
///
/// lowerCamelCase keys in field-number order; `traceId`/`spanId`/`parentSpanId` as lowercase hex; enums as
/// integers; 64-bit integers and timestamps as decimal strings; bytes as padded base64; doubles as numbers
/// except `"NaN"`, `"Infinity"`, `"-Infinity"` (`-0.0` keeps its sign). Fields at their default are left
/// out; a present empty message stays (`"status":{}`); a oneof member at its default stays
/// (`{"intValue":"0"}`). Each request is one line, what the Collector's `otlpjsonfile` receiver reads.
public struct OTLPJSONEncoder: Sendable {
    /// An encoder; it keeps no state between requests.
    public init() {}

    /// One request (any signal) as a single line of JSON (no newline).
    public func encode<Item: OTLPSignalItem>(_ data: OTLPSignalData<Item>) -> [UInt8] {
        encode(data.payload)
    }

    /// The request `payload` holds (any signal) as a single line of JSON (no newline).
    package func encode(_ payload: OTLPPayload) -> [UInt8] {
        switch payload {
        case .traces(let data): encodeRequest(data)
        case .logs(let data): encodeRequest(data)
        case .metrics(let data): encodeRequest(data)
        }
    }

    /// A request of any kind: the envelope is written once for all, each item by its type (``JSONItem``).
    @_specialize(where Item == OTLPSpan)
    @_specialize(where Item == OTLPLogRecord)
    @_specialize(where Item == OTLPMetric)
    func encodeRequest<Item: JSONItem>(_ data: OTLPSignalData<Item>) -> [UInt8] {
        let members = Item.jsonMembers
        var out = JSONOutput(reservingCapacity: 1024)
        out.beginObject()
        if !data.resourceGroups.isEmpty {
            out.key(members.resourceGroups)
            out.beginArray()
            for group in data.resourceGroups {
                out.beginObject()
                if let resource = group.resource { out.key("resource"); write(resource, &out) }
                if !group.scopeGroups.isEmpty {
                    out.key(members.scopeGroups)
                    out.beginArray()
                    for scopeGroup in group.scopeGroups {
                        out.beginObject()
                        if let scope = scopeGroup.scope { out.key("scope"); write(scope, &out) }
                        if !scopeGroup.items.isEmpty {
                            out.key(members.items)
                            out.beginArray()
                            for item in scopeGroup.items { Item.writeJSON(item, with: self, to: &out) }
                            out.endArray()
                        }
                        stringField("schemaUrl", scopeGroup.schemaURL, &out)
                        out.endObject()
                    }
                    out.endArray()
                }
                stringField("schemaUrl", group.schemaURL, &out)
                out.endObject()
            }
            out.endArray()
        }
        out.endObject()
        return out.bytes
    }

    /// An attribute value as OTLP/JSON `AnyValue`, for tools that print single values.
    package func encode(_ value: OTLPAttributeValue) -> String {
        var out = JSONOutput()
        write(value, &out)
        return String(decoding: out.bytes, as: UTF8.self)
    }

    // MARK: - Pieces

    func stringField(_ key: StaticString, _ value: String, _ out: inout JSONOutput) {
        guard !value.isEmpty else { return }
        out.key(key)
        out.string(value)
    }

    func uintField(_ key: StaticString, _ value: UInt32, _ out: inout JSONOutput) {
        guard value != 0 else { return }
        out.key(key)
        out.raw(String(value))
    }

    func intField(_ key: StaticString, _ value: Int32, _ out: inout JSONOutput) {
        guard value != 0 else { return }
        out.key(key)
        out.raw(String(value))
    }

    func timeField(_ key: StaticString, _ value: UInt64, _ out: inout JSONOutput) {
        guard value != 0 else { return }
        out.key(key)
        out.quotedRaw(String(value))
    }

    func write(_ attributes: [OTLPAttribute], key: StaticString, _ out: inout JSONOutput) {
        guard !attributes.isEmpty else { return }
        out.key(key)
        out.beginArray()
        for attribute in attributes { write(attribute, &out) }
        out.endArray()
    }

    private func write(_ attribute: OTLPAttribute, _ out: inout JSONOutput) {
        out.beginObject()
        stringField("key", attribute.key, &out)
        if let value = attribute.value {
            out.key("value")
            write(value, &out)
        }
        out.endObject()
    }

    private func write(_ value: OTLPAttributeValue, _ out: inout JSONOutput) {
        out.beginObject()
        switch value {
        case .string(let string): out.key("stringValue"); out.string(string)
        case .bool(let bool): out.key("boolValue"); out.raw(bool ? "true" : "false")
        case .int(let int): out.key("intValue"); out.quotedRaw(String(int))
        case .double(let double): out.key("doubleValue"); out.raw(Self.jsonNumber(double))
        case .bytes(let bytes): out.key("bytesValue"); out.quotedRaw(Base64.encode(bytes))
        case .array(let values):
            out.key("arrayValue")
            out.beginObject()
            if !values.isEmpty {
                out.key("values")
                out.beginArray()
                for element in values { write(element, &out) }
                out.endArray()
            }
            out.endObject()
        case .keyValueList(let attributes):
            out.key("kvlistValue")
            out.beginObject()
            write(attributes, key: "values", &out)
            out.endObject()
        case .empty: break
        }
        out.endObject()
    }

    static func jsonNumber(_ double: Double) -> String {
        if double.isNaN { return "\"NaN\"" }
        if double.isInfinite { return double < 0 ? "\"-Infinity\"" : "\"Infinity\"" }
        return "\(double)"
    }

    private func write(_ resource: OTLPResource, _ out: inout JSONOutput) {
        out.beginObject()
        write(resource.attributes, key: "attributes", &out)
        uintField("droppedAttributesCount", resource.droppedAttributesCount, &out)
        if !resource.entityRefs.isEmpty {
            out.key("entityRefs")
            out.beginArray()
            for ref in resource.entityRefs {
                out.beginObject()
                stringField("schemaUrl", ref.schemaURL, &out)
                stringField("type", ref.type, &out)
                for (key, list) in [("idKeys", ref.idKeys), ("descriptionKeys", ref.descriptionKeys)] where !list.isEmpty {
                    key == "idKeys" ? out.key("idKeys") : out.key("descriptionKeys")
                    out.beginArray()
                    for item in list { out.string(item) }
                    out.endArray()
                }
                out.endObject()
            }
            out.endArray()
        }
        out.endObject()
    }

    private func write(_ scope: OTLPInstrumentationScope, _ out: inout JSONOutput) {
        out.beginObject()
        stringField("name", scope.name, &out)
        stringField("version", scope.version, &out)
        write(scope.attributes, key: "attributes", &out)
        uintField("droppedAttributesCount", scope.droppedAttributesCount, &out)
        out.endObject()
    }

    func write(_ span: OTLPSpan, _ out: inout JSONOutput) {
        out.beginObject()
        if let id = span.traceID { out.key("traceId"); out.quotedRaw(id.hex) }
        if let id = span.spanID { out.key("spanId"); out.quotedRaw(id.hex) }
        stringField("traceState", span.traceState, &out)
        if let id = span.parentSpanID { out.key("parentSpanId"); out.quotedRaw(id.hex) }
        stringField("name", span.name, &out)
        intField("kind", span.kind.rawValue, &out)
        timeField("startTimeUnixNano", span.startTimeUnixNano, &out)
        timeField("endTimeUnixNano", span.endTimeUnixNano, &out)
        write(span.attributes, key: "attributes", &out)
        uintField("droppedAttributesCount", span.droppedAttributesCount, &out)
        if !span.events.isEmpty {
            out.key("events")
            out.beginArray()
            for event in span.events {
                out.beginObject()
                timeField("timeUnixNano", event.timeUnixNano, &out)
                stringField("name", event.name, &out)
                write(event.attributes, key: "attributes", &out)
                uintField("droppedAttributesCount", event.droppedAttributesCount, &out)
                out.endObject()
            }
            out.endArray()
        }
        uintField("droppedEventsCount", span.droppedEventsCount, &out)
        if !span.links.isEmpty {
            out.key("links")
            out.beginArray()
            for link in span.links {
                out.beginObject()
                if let id = link.traceID { out.key("traceId"); out.quotedRaw(id.hex) }
                if let id = link.spanID { out.key("spanId"); out.quotedRaw(id.hex) }
                stringField("traceState", link.traceState, &out)
                write(link.attributes, key: "attributes", &out)
                uintField("droppedAttributesCount", link.droppedAttributesCount, &out)
                uintField("flags", link.flags, &out)
                out.endObject()
            }
            out.endArray()
        }
        uintField("droppedLinksCount", span.droppedLinksCount, &out)
        if let status = span.status {
            out.key("status")
            out.beginObject()
            stringField("message", status.message, &out)
            intField("code", status.code.rawValue, &out)
            out.endObject()
        }
        uintField("flags", span.flags, &out)
        out.endObject()
    }

    func write(_ record: OTLPLogRecord, _ out: inout JSONOutput) {
        out.beginObject()
        timeField("timeUnixNano", record.timeUnixNano, &out)
        intField("severityNumber", record.severity.rawValue, &out)
        stringField("severityText", record.severityText, &out)
        if let body = record.body { out.key("body"); write(body, &out) }
        write(record.attributes, key: "attributes", &out)
        uintField("droppedAttributesCount", record.droppedAttributesCount, &out)
        uintField("flags", record.flags, &out)
        if let id = record.traceID { out.key("traceId"); out.quotedRaw(id.hex) }
        if let id = record.spanID { out.key("spanId"); out.quotedRaw(id.hex) }
        timeField("observedTimeUnixNano", record.observedTimeUnixNano, &out)
        stringField("eventName", record.eventName, &out)
        out.endObject()
    }
}
