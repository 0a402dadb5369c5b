internal import COTLPProto
internal import COTLPShims
internal import CProtobufC

/// Turns unpacked protoc-c structs into the Swift model. Strings were checked as UTF-8 by the scan.
enum ProtobufCReader {
    static func string(_ value: ProtobufCBinaryData) -> String {
        guard value.len > 0, let data = value.data else { return "" }
        return String(decoding: UnsafeBufferPointer(start: data, count: value.len), as: UTF8.self)
    }

    static func bytes(_ value: ProtobufCBinaryData) -> [UInt8] {
        guard value.len > 0, let data = value.data else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: value.len))
    }

    static func traceID(_ value: ProtobufCBinaryData, _ what: String) throws(OTLPReadError) -> OTLPTraceID? {
        guard value.len > 0 else { return nil }
        guard value.len == 16, let id = OTLPTraceID(bytes: UnsafeBufferPointer(start: value.data, count: 16)) else {
            throw OTLPReadError(.malformedProtobuf, "\(what) trace_id is \(value.len) bytes, expected 16")
        }
        return id
    }

    static func spanID(_ value: ProtobufCBinaryData, _ what: String) throws(OTLPReadError) -> OTLPSpanID? {
        guard value.len > 0 else { return nil }
        guard value.len == 8, let id = OTLPSpanID(bytes: UnsafeBufferPointer(start: value.data, count: 8)) else {
            throw OTLPReadError(.malformedProtobuf, "\(what) is \(value.len) bytes, expected 8")
        }
        return id
    }

    static func array<T, R>(
        _ count: Int, _ pointers: UnsafeMutablePointer<UnsafeMutablePointer<T>?>?,
        _ transform: (T) throws(OTLPReadError) -> R
    ) throws(OTLPReadError) -> [R] {
        guard count > 0, let pointers else { return [] }
        var out: [R] = []
        out.reserveCapacity(count)
        for index in 0..<count {
            if let element = pointers[index] { out.append(try transform(element.pointee)) }
        }
        return out
    }

    static func anyValue(_ value: PBAnyValue) -> OTLPAttributeValue {
        switch value.value_case {
        case OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE: .string(string(value.string_value))
        case OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_BOOL_VALUE: .bool(value.bool_value != 0)
        case OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_INT_VALUE: .int(value.int_value)
        case OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_DOUBLE_VALUE: .double(value.double_value)
        case OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_BYTES_VALUE: .bytes(bytes(value.bytes_value))
        case OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_ARRAY_VALUE:
            .array(
                value.array_value.map { list in
                    (0..<list.pointee.n_values).compactMap { list.pointee.values[$0].map { anyValue($0.pointee) } }
                } ?? [])
        case OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_KVLIST_VALUE:
            .keyValueList(
                value.kvlist_value.map { list in
                    (0..<list.pointee.n_values).compactMap { list.pointee.values[$0].map { keyValue($0.pointee) } }
                } ?? [])
        default: .empty
        }
    }

    static func keyValue(_ keyValue: PBKeyValue) -> OTLPAttribute {
        OTLPAttribute(string(keyValue.key), keyValue.value.map { anyValue($0.pointee) })
    }

    static func attributes(_ count: Int, _ pointers: UnsafeMutablePointer<UnsafeMutablePointer<PBKeyValue>?>?) -> [OTLPAttribute] {
        guard count > 0, let pointers else { return [] }
        return (0..<count).compactMap { pointers[$0].map { keyValue($0.pointee) } }
    }

    static func resource(_ resource: PBResource) -> OTLPResource {
        OTLPResource(
            attributes: attributes(resource.n_attributes, resource.attributes),
            droppedAttributesCount: resource.dropped_attributes_count,
            entityRefs: (0..<resource.n_entity_refs).compactMap { index in
                resource.entity_refs[index].map { ref in
                    OTLPEntityRef(
                        schemaURL: string(ref.pointee.schema_url), type: string(ref.pointee.type),
                        idKeys: (0..<ref.pointee.n_id_keys).map { string(ref.pointee.id_keys[$0]) },
                        descriptionKeys: (0..<ref.pointee.n_description_keys).map { string(ref.pointee.description_keys[$0]) })
                }
            })
    }

    static func scope(_ scope: PBScope) -> OTLPInstrumentationScope {
        OTLPInstrumentationScope(
            name: string(scope.name), version: string(scope.version),
            attributes: attributes(scope.n_attributes, scope.attributes),
            droppedAttributesCount: scope.dropped_attributes_count)
    }

    static func span(_ span: PBSpan) throws(OTLPReadError) -> OTLPSpan {
        OTLPSpan(
            traceID: try traceID(span.trace_id, "span"),
            spanID: try spanID(span.span_id, "span span_id"),
            parentSpanID: try spanID(span.parent_span_id, "span parent_span_id"),
            name: string(span.name),
            kind: OTLPSpanKind(rawValue: Int32(bitPattern: UInt32(truncatingIfNeeded: span.kind.rawValue))),
            startTimeUnixNano: span.start_time_unix_nano,
            endTimeUnixNano: span.end_time_unix_nano,
            attributes: attributes(span.n_attributes, span.attributes),
            events: try array(span.n_events, span.events) { event in
                OTLPSpanEvent(
                    name: string(event.name), timeUnixNano: event.time_unix_nano,
                    attributes: attributes(event.n_attributes, event.attributes),
                    droppedAttributesCount: event.dropped_attributes_count)
            },
            links: try array(span.n_links, span.links) { (link) throws(OTLPReadError) in
                OTLPSpanLink(
                    traceID: try traceID(link.trace_id, "link"), spanID: try spanID(link.span_id, "link span_id"),
                    traceState: string(link.trace_state), attributes: attributes(link.n_attributes, link.attributes),
                    droppedAttributesCount: link.dropped_attributes_count, flags: link.flags)
            },
            status: span.status.map { status in
                OTLPSpanStatus(
                    code: .init(rawValue: Int32(bitPattern: UInt32(truncatingIfNeeded: status.pointee.code.rawValue))),
                    message: string(status.pointee.message))
            },
            traceState: string(span.trace_state),
            flags: span.flags,
            droppedAttributesCount: span.dropped_attributes_count,
            droppedEventsCount: span.dropped_events_count,
            droppedLinksCount: span.dropped_links_count)
    }

    static func logRecord(_ record: PBLogRecord) throws(OTLPReadError) -> OTLPLogRecord {
        OTLPLogRecord(
            timeUnixNano: record.time_unix_nano,
            observedTimeUnixNano: record.observed_time_unix_nano,
            severity: OTLPSeverity(rawValue: Int32(bitPattern: UInt32(truncatingIfNeeded: record.severity_number.rawValue))),
            severityText: string(record.severity_text),
            body: record.body.map { anyValue($0.pointee) },
            attributes: attributes(record.n_attributes, record.attributes),
            traceID: try traceID(record.trace_id, "log record"),
            spanID: try spanID(record.span_id, "log record span_id"),
            flags: record.flags,
            eventName: string(record.event_name),
            droppedAttributesCount: record.dropped_attributes_count)
    }

    /// The model of a request protobuf-c unpacked, read through the envelope every request shares.
    @_specialize(where Item == OTLPSpan)
    @_specialize(where Item == OTLPLogRecord)
    @_specialize(where Item == OTLPMetric)
    static func request<Item: ProtobufCItem>(_ request: COTLPShims_Request) throws(OTLPReadError) -> OTLPSignalData<Item> {
        OTLPSignalData(
            resourceGroups: try array(request.n_resource_groups, request.resource_groups) { (group) throws(OTLPReadError) in
                OTLPResourceGroup(
                    resource: group.resource.map { resource($0.pointee) },
                    scopeGroups: try array(group.n_scope_groups, group.scope_groups) { (scopeGroup) throws(OTLPReadError) in
                        OTLPScopeGroup(
                            scope: scopeGroup.scope.map { scope($0.pointee) },
                            items: try items(scopeGroup.n_items, scopeGroup.items),
                            schemaURL: string(scopeGroup.schema_url))
                    },
                    schemaURL: string(group.schema_url))
            })
    }

    /// The items of a scope group: each pointer is the `base` of an `Item.CMessage`.
    @_specialize(where Item == OTLPSpan)
    @_specialize(where Item == OTLPLogRecord)
    @_specialize(where Item == OTLPMetric)
    private static func items<Item: ProtobufCItem>(
        _ count: Int, _ pointers: UnsafeMutablePointer<UnsafeMutablePointer<ProtobufCMessage>?>?
    ) throws(OTLPReadError) -> [Item] {
        guard count > 0, let pointers else { return [] }
        var out: [Item] = []
        out.reserveCapacity(count)
        for index in 0..<count {
            if let message = pointers[index] {
                out.append(try Item.read(UnsafeRawPointer(message).assumingMemoryBound(to: Item.CMessage.self).pointee))
            }
        }
        return out
    }
}
