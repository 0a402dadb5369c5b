internal import COTLPProto
internal import COTLPShims
internal import CProtobufC

extension ProtobufCBuilder {
    /// Fills `pointer` with `record`.
    mutating func logRecord(_ record: borrowing OTLPLogRecord, into pointer: UnsafeMutablePointer<PBLogRecord>) {
        COTLPShims_init_log_record(pointer)
        scalars(6)  // times, severity number, dropped count, flags, slack
        census.log_records &+= 1
        countItemAttributes(record.attributes.count)
        // 10 fields that occur at most once, and the attributes.
        countFields(10 &+ record.attributes.count)
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
}
