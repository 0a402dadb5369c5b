internal import COTLPProto
internal import COTLPShims
internal import CProtobufC

/// Builds protoc-c structs for one request from the Swift model, in one ``ProtobufCArena``.
///
/// Strings and IDs are copied into the arena as (pointer, length) (the bindings declare strings as `bytes`,
/// see `scripts/generate-protos.sh`), so no NUL terminator is needed and U+0000 survives. While building it
/// sums ``packedSizeBound``, a true upper bound of the packed size: protobuf-c packs without bounds checks,
/// and the encoder reserves that much output before packing.
struct ProtobufCBuilder {
    let arena: ProtobufCArena
    /// Upper bound of the packed size of everything built so far.
    private(set) var packedSizeBound = 0

    // Per field: tag (<= 2 bytes) + varint (<= 10). Per string/bytes: tag + length (<= 12) + bytes.
    private static let scalarBound = 12
    private static let messageBound = 16

    init(arena: ProtobufCArena) {
        self.arena = arena
    }

    // MARK: - Leaves

    @inline(__always)
    mutating func bytes(_ string: String) -> ProtobufCBinaryData {
        let count = string.utf8.count
        guard count > 0 else { return ProtobufCBinaryData(len: 0, data: nil) }
        packedSizeBound &+= count &+ Self.scalarBound
        let destination = arena.allocate(byteCount: count)
        // Native strings (and small ones, copied to the stack) are contiguous UTF-8.
        let copied: Void? = string.utf8.withContiguousStorageIfAvailable { source in
            destination.copyMemory(from: source.baseAddress!, byteCount: count)
        }
        if copied == nil {
            var copy = string
            copy.withUTF8 { destination.copyMemory(from: $0.baseAddress!, byteCount: count) }
        }
        return ProtobufCBinaryData(len: count, data: destination.assumingMemoryBound(to: UInt8.self))
    }

    @inline(__always)
    mutating func bytes(_ array: [UInt8]) -> ProtobufCBinaryData {
        guard !array.isEmpty else { return ProtobufCBinaryData(len: 0, data: nil) }
        packedSizeBound &+= array.count &+ Self.scalarBound
        let destination = arena.allocate(byteCount: array.count)
        array.withUnsafeBytes { destination.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        return ProtobufCBinaryData(len: array.count, data: destination.assumingMemoryBound(to: UInt8.self))
    }

    @inline(__always)
    mutating func bytes(_ id: OTLPTraceID?) -> ProtobufCBinaryData {
        guard let id else { return ProtobufCBinaryData(len: 0, data: nil) }
        packedSizeBound &+= 16 &+ Self.scalarBound
        let destination = arena.allocate(byteCount: 16)
        destination.storeBytes(of: id.high.bigEndian, as: UInt64.self)
        destination.storeBytes(of: id.low.bigEndian, toByteOffset: 8, as: UInt64.self)
        return ProtobufCBinaryData(len: 16, data: destination.assumingMemoryBound(to: UInt8.self))
    }

    @inline(__always)
    mutating func bytes(_ id: OTLPSpanID?) -> ProtobufCBinaryData {
        guard let id else { return ProtobufCBinaryData(len: 0, data: nil) }
        packedSizeBound &+= 8 &+ Self.scalarBound
        let destination = arena.allocate(byteCount: 8)
        destination.storeBytes(of: id.value.bigEndian, as: UInt64.self)
        return ProtobufCBinaryData(len: 8, data: destination.assumingMemoryBound(to: UInt8.self))
    }

    @inline(__always)
    private mutating func scalars(_ count: Int) {
        packedSizeBound &+= count &* Self.scalarBound
    }

    @inline(__always)
    private mutating func message<T>(_ type: T.Type, count: Int = 1) -> UnsafeMutablePointer<T> {
        packedSizeBound &+= count &* Self.messageBound
        return arena.allocate(type, count: count)
    }

    // MARK: - Common

    /// The struct that packs as `value`'s `AnyValue`.
    ///
    /// Strings, booleans, integers, doubles and bytes use the encoding-only one-field messages
    /// (`otlpwire.encoding.v1.*AnyValue`): the same bytes as an `AnyValue` with that member set, but
    /// protobuf-c visits one field descriptor instead of eight. The pointer is typed as `AnyValue` only to
    /// be stored in the C struct; protobuf-c packs it through its own descriptor and nothing reads it back.
    mutating func anyValue(_ value: OTLPAttributeValue) -> UnsafeMutablePointer<PBAnyValue> {
        switch value {
        case .string(let string):
            let member = message(PBStringAnyValue.self)
            COTLPShims_init_string_any_value(member)
            member.pointee.string_value = bytes(string)
            packedSizeBound &+= Self.scalarBound  // the member is written even when empty
            return UnsafeMutablePointer(OpaquePointer(member))
        case .bool(let bool):
            let member = message(PBBoolAnyValue.self)
            COTLPShims_init_bool_any_value(member)
            member.pointee.bool_value = bool ? 1 : 0
            scalars(1)
            return UnsafeMutablePointer(OpaquePointer(member))
        case .int(let int):
            let member = message(PBIntAnyValue.self)
            COTLPShims_init_int_any_value(member)
            member.pointee.int_value = int
            scalars(1)
            return UnsafeMutablePointer(OpaquePointer(member))
        case .double(let double):
            let member = message(PBDoubleAnyValue.self)
            COTLPShims_init_double_any_value(member)
            member.pointee.double_value = double
            scalars(1)
            return UnsafeMutablePointer(OpaquePointer(member))
        case .bytes(let array):
            let member = message(PBBytesAnyValue.self)
            COTLPShims_init_bytes_any_value(member)
            member.pointee.bytes_value = bytes(array)
            packedSizeBound &+= Self.scalarBound
            return UnsafeMutablePointer(OpaquePointer(member))
        case .array(let values):
            let pointer = message(PBAnyValue.self)
            COTLPShims_init_any_value(pointer)
            let array = message(PBArrayValue.self)
            COTLPShims_init_array_value(array)
            let count = values.count
            if count > 0 {
                let pointers = arena.allocate(UnsafeMutablePointer<PBAnyValue>?.self, count: count)
                values.withUnsafeBufferPointer { buffer in
                    for index in 0..<count { pointers[index] = anyValue(buffer[index]) }
                }
                array.pointee.n_values = count
                array.pointee.values = pointers
            }
            pointer.pointee.value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_ARRAY_VALUE
            pointer.pointee.array_value = array
            return pointer
        case .keyValueList(let attributes):
            let pointer = message(PBAnyValue.self)
            COTLPShims_init_any_value(pointer)
            let list = message(PBKeyValueList.self)
            COTLPShims_init_key_value_list(list)
            (list.pointee.n_values, list.pointee.values) = keyValues(attributes)
            pointer.pointee.value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_KVLIST_VALUE
            pointer.pointee.kvlist_value = list
            return pointer
        case .empty:
            let pointer = message(PBAnyValue.self)
            COTLPShims_init_any_value(pointer)
            return pointer
        }
    }

    mutating func keyValues(
        _ attributes: [OTLPAttribute]
    ) -> (Int, UnsafeMutablePointer<UnsafeMutablePointer<PBKeyValue>?>?) {
        let count = attributes.count
        guard count > 0 else { return (0, nil) }
        packedSizeBound &+= count &* Self.messageBound
        let pointers = arena.allocate(UnsafeMutablePointer<PBKeyValue>?.self, count: count)
        // Read the attributes in place (no copy of each element, so no retain/release per field).
        attributes.withUnsafeBufferPointer { buffer in
            for index in 0..<count {
                if buffer[index].value != nil && !buffer[index].key.isEmpty {
                    // The common case: the encoding-only KeyValue with both fields required (same bytes).
                    let keyValue = arena.allocate(PBPresentKeyValue.self)
                    COTLPShims_init_present_key_value(keyValue)
                    keyValue.pointee.key = bytes(buffer[index].key)
                    keyValue.pointee.value = anyValue(buffer[index].value.unsafelyUnwrapped)
                    pointers[index] = UnsafeMutablePointer(OpaquePointer(keyValue))
                } else {
                    let keyValue = arena.allocate(PBKeyValue.self)
                    COTLPShims_init_key_value(keyValue)
                    keyValue.pointee.key = bytes(buffer[index].key)
                    if buffer[index].value != nil { keyValue.pointee.value = anyValue(buffer[index].value.unsafelyUnwrapped) }
                    pointers[index] = keyValue
                }
            }
        }
        return (count, pointers)
    }

    mutating func resource(_ resource: OTLPResource) -> UnsafeMutablePointer<PBResource> {
        let pointer = message(PBResource.self)
        COTLPShims_init_resource(pointer)
        (pointer.pointee.n_attributes, pointer.pointee.attributes) = keyValues(resource.attributes)
        pointer.pointee.dropped_attributes_count = resource.droppedAttributesCount
        scalars(1)
        let count = resource.entityRefs.count
        if count > 0 {
            let refs = message(PBEntityRef.self, count: count)
            let pointers = arena.allocate(UnsafeMutablePointer<PBEntityRef>?.self, count: count)
            for (index, ref) in resource.entityRefs.enumerated() {
                let refPointer = refs + index
                COTLPShims_init_entity_ref(refPointer)
                refPointer.pointee.schema_url = bytes(ref.schemaURL)
                refPointer.pointee.type = bytes(ref.type)
                (refPointer.pointee.n_id_keys, refPointer.pointee.id_keys) = strings(ref.idKeys)
                (refPointer.pointee.n_description_keys, refPointer.pointee.description_keys) = strings(ref.descriptionKeys)
                pointers[index] = refPointer
            }
            pointer.pointee.n_entity_refs = count
            pointer.pointee.entity_refs = pointers
        }
        return pointer
    }

    private mutating func strings(_ strings: [String]) -> (Int, UnsafeMutablePointer<ProtobufCBinaryData>?) {
        guard !strings.isEmpty else { return (0, nil) }
        let array = arena.allocate(ProtobufCBinaryData.self, count: strings.count)
        for (index, string) in strings.enumerated() {
            array[index] = bytes(string)
            packedSizeBound &+= Self.scalarBound  // repeated members are written even when empty
        }
        return (strings.count, array)
    }

    mutating func scope(_ scope: OTLPInstrumentationScope) -> UnsafeMutablePointer<PBScope> {
        let pointer = message(PBScope.self)
        COTLPShims_init_scope(pointer)
        pointer.pointee.name = bytes(scope.name)
        pointer.pointee.version = bytes(scope.version)
        (pointer.pointee.n_attributes, pointer.pointee.attributes) = keyValues(scope.attributes)
        pointer.pointee.dropped_attributes_count = scope.droppedAttributesCount
        scalars(1)
        return pointer
    }

    // MARK: - Traces

    mutating func span(_ span: borrowing OTLPSpan, into pointer: UnsafeMutablePointer<PBSpan>) {
        COTLPShims_init_span(pointer)
        scalars(8)  // flags, kind, start, end, three dropped counts, slack
        pointer.pointee.trace_id = bytes(span.traceID)
        pointer.pointee.span_id = bytes(span.spanID)
        pointer.pointee.trace_state = bytes(span.traceState)
        pointer.pointee.parent_span_id = bytes(span.parentSpanID)
        pointer.pointee.flags = span.flags
        pointer.pointee.name = bytes(span.name)
        pointer.pointee.kind = .init(rawValue: .init(truncatingIfNeeded: span.kind.rawValue))
        pointer.pointee.start_time_unix_nano = span.startTimeUnixNano
        pointer.pointee.end_time_unix_nano = span.endTimeUnixNano
        (pointer.pointee.n_attributes, pointer.pointee.attributes) = keyValues(span.attributes)
        pointer.pointee.dropped_attributes_count = span.droppedAttributesCount
        pointer.pointee.dropped_events_count = span.droppedEventsCount
        pointer.pointee.dropped_links_count = span.droppedLinksCount
        let eventCount = span.events.count
        if eventCount > 0 {
            let events = message(PBSpanEvent.self, count: eventCount)
            let pointers = arena.allocate(UnsafeMutablePointer<PBSpanEvent>?.self, count: eventCount)
            span.events.withUnsafeBufferPointer { buffer in
                for index in 0..<eventCount {
                    let eventPointer = events + index
                    COTLPShims_init_span_event(eventPointer)
                    scalars(2)
                    eventPointer.pointee.time_unix_nano = buffer[index].timeUnixNano
                    eventPointer.pointee.name = bytes(buffer[index].name)
                    (eventPointer.pointee.n_attributes, eventPointer.pointee.attributes) = keyValues(buffer[index].attributes)
                    eventPointer.pointee.dropped_attributes_count = buffer[index].droppedAttributesCount
                    pointers[index] = eventPointer
                }
            }
            pointer.pointee.n_events = eventCount
            pointer.pointee.events = pointers
        }
        let linkCount = span.links.count
        if linkCount > 0 {
            let links = message(PBSpanLink.self, count: linkCount)
            let pointers = arena.allocate(UnsafeMutablePointer<PBSpanLink>?.self, count: linkCount)
            for index in 0..<linkCount {
                let link = span.links[index]
                let linkPointer = links + index
                COTLPShims_init_span_link(linkPointer)
                scalars(2)
                linkPointer.pointee.trace_id = bytes(link.traceID)
                linkPointer.pointee.span_id = bytes(link.spanID)
                linkPointer.pointee.trace_state = bytes(link.traceState)
                (linkPointer.pointee.n_attributes, linkPointer.pointee.attributes) = keyValues(link.attributes)
                linkPointer.pointee.dropped_attributes_count = link.droppedAttributesCount
                linkPointer.pointee.flags = link.flags
                pointers[index] = linkPointer
            }
            pointer.pointee.n_links = linkCount
            pointer.pointee.links = pointers
        }
        if let status = span.status {
            let statusPointer = message(PBStatus.self)
            COTLPShims_init_status(statusPointer)
            scalars(1)
            statusPointer.pointee.message = bytes(status.message)
            statusPointer.pointee.code = .init(rawValue: .init(truncatingIfNeeded: status.code.rawValue))
            pointer.pointee.status = statusPointer
        }
    }

    mutating func traceRequest(_ data: OTLPTracesData) -> UnsafeMutablePointer<PBTraceRequest> {
        let request = message(PBTraceRequest.self)
        COTLPShims_init_trace_request(request)
        let resourceCount = data.resourceSpans.count
        guard resourceCount > 0 else { return request }
        let resources = message(PBResourceSpans.self, count: resourceCount)
        let resourcePointers = arena.allocate(UnsafeMutablePointer<PBResourceSpans>?.self, count: resourceCount)
        for (r, group) in data.resourceSpans.enumerated() {
            let resourceSpans = resources + r
            COTLPShims_init_resource_spans(resourceSpans)
            if let resource = group.resource { resourceSpans.pointee.resource = self.resource(resource) }
            resourceSpans.pointee.schema_url = bytes(group.schemaURL)
            let scopeCount = group.scopeSpans.count
            if scopeCount > 0 {
                let scopes = message(PBScopeSpans.self, count: scopeCount)
                let scopePointers = arena.allocate(UnsafeMutablePointer<PBScopeSpans>?.self, count: scopeCount)
                for (s, scopeGroup) in group.scopeSpans.enumerated() {
                    let scopeSpans = scopes + s
                    COTLPShims_init_scope_spans(scopeSpans)
                    if let scope = scopeGroup.scope { scopeSpans.pointee.scope = self.scope(scope) }
                    scopeSpans.pointee.schema_url = bytes(scopeGroup.schemaURL)
                    let spanCount = scopeGroup.spans.count
                    if spanCount > 0 {
                        let spans = message(PBSpan.self, count: spanCount)
                        let spanPointers = arena.allocate(UnsafeMutablePointer<PBSpan>?.self, count: spanCount)
                        scopeGroup.spans.withUnsafeBufferPointer { buffer in
                            for index in 0..<spanCount {
                                span(buffer[index], into: spans + index)
                                spanPointers[index] = spans + index
                            }
                        }
                        scopeSpans.pointee.n_spans = spanCount
                        scopeSpans.pointee.spans = spanPointers
                    }
                    scopePointers[s] = scopeSpans
                }
                resourceSpans.pointee.n_scope_spans = scopeCount
                resourceSpans.pointee.scope_spans = scopePointers
            }
            resourcePointers[r] = resourceSpans
        }
        request.pointee.n_resource_spans = resourceCount
        request.pointee.resource_spans = resourcePointers
        return request
    }

    // MARK: - Logs

    mutating func logRecord(_ record: borrowing OTLPLogRecord, into pointer: UnsafeMutablePointer<PBLogRecord>) {
        COTLPShims_init_log_record(pointer)
        scalars(6)  // times, severity number, dropped count, flags, slack
        pointer.pointee.time_unix_nano = record.timeUnixNano
        pointer.pointee.observed_time_unix_nano = record.observedTimeUnixNano
        pointer.pointee.severity_number = .init(rawValue: .init(truncatingIfNeeded: record.severity.rawValue))
        pointer.pointee.severity_text = bytes(record.severityText)
        if let body = record.body { pointer.pointee.body = anyValue(body) }
        (pointer.pointee.n_attributes, pointer.pointee.attributes) = keyValues(record.attributes)
        pointer.pointee.dropped_attributes_count = record.droppedAttributesCount
        pointer.pointee.flags = record.flags
        pointer.pointee.trace_id = bytes(record.traceID)
        pointer.pointee.span_id = bytes(record.spanID)
        pointer.pointee.event_name = bytes(record.eventName)
    }

    mutating func logsRequest(_ data: OTLPLogsData) -> UnsafeMutablePointer<PBLogsRequest> {
        let request = message(PBLogsRequest.self)
        COTLPShims_init_logs_request(request)
        let resourceCount = data.resourceLogs.count
        guard resourceCount > 0 else { return request }
        let resources = message(PBResourceLogs.self, count: resourceCount)
        let resourcePointers = arena.allocate(UnsafeMutablePointer<PBResourceLogs>?.self, count: resourceCount)
        for (r, group) in data.resourceLogs.enumerated() {
            let resourceLogs = resources + r
            COTLPShims_init_resource_logs(resourceLogs)
            if let resource = group.resource { resourceLogs.pointee.resource = self.resource(resource) }
            resourceLogs.pointee.schema_url = bytes(group.schemaURL)
            let scopeCount = group.scopeLogs.count
            if scopeCount > 0 {
                let scopes = message(PBScopeLogs.self, count: scopeCount)
                let scopePointers = arena.allocate(UnsafeMutablePointer<PBScopeLogs>?.self, count: scopeCount)
                for (s, scopeGroup) in group.scopeLogs.enumerated() {
                    let scopeLogs = scopes + s
                    COTLPShims_init_scope_logs(scopeLogs)
                    if let scope = scopeGroup.scope { scopeLogs.pointee.scope = self.scope(scope) }
                    scopeLogs.pointee.schema_url = bytes(scopeGroup.schemaURL)
                    let recordCount = scopeGroup.logRecords.count
                    if recordCount > 0 {
                        let records = message(PBLogRecord.self, count: recordCount)
                        let recordPointers = arena.allocate(UnsafeMutablePointer<PBLogRecord>?.self, count: recordCount)
                        scopeGroup.logRecords.withUnsafeBufferPointer { buffer in
                            for index in 0..<recordCount {
                                logRecord(buffer[index], into: records + index)
                                recordPointers[index] = records + index
                            }
                        }
                        scopeLogs.pointee.n_log_records = recordCount
                        scopeLogs.pointee.log_records = recordPointers
                    }
                    scopePointers[s] = scopeLogs
                }
                resourceLogs.pointee.n_scope_logs = scopeCount
                resourceLogs.pointee.scope_logs = scopePointers
            }
            resourcePointers[r] = resourceLogs
        }
        request.pointee.n_resource_logs = resourceCount
        request.pointee.resource_logs = resourcePointers
        return request
    }
}
