internal import COTLPProto
internal import COTLPShims
internal import CProtobufC

extension ProtobufCBuilder {
    /// Fills `pointer` with the log record at `record`, read in place (see ``request(_:)``).
    mutating func logRecord(_ record: UnsafePointer<OTLPLogRecord>, into pointer: UnsafeMutablePointer<PBLogRecord>) {
        COTLPShims_init_log_record(pointer)
        scalars(6)  // times, severity number, dropped count, flags, slack
        census.log_records &+= 1
        countItemAttributes(record.pointee.attributes.count)
        // 10 fields that occur at most once, and the attributes.
        countFields(10 &+ record.pointee.attributes.count)
        pointer.pointee.time_unix_nano = record.pointee.timeUnixNano
        pointer.pointee.observed_time_unix_nano = record.pointee.observedTimeUnixNano
        pointer.pointee.severity_number = .init(rawValue: .init(truncatingIfNeeded: record.pointee.severity.rawValue))
        pointer.pointee.severity_text = bytes(record.pointee.severityText)
        if let body = record.pointee.body { pointer.pointee.body = anyValue(body) }
        (pointer.pointee.n_attributes, pointer.pointee.attributes) = keyValues(record.pointee.attributes)
        pointer.pointee.dropped_attributes_count = record.pointee.droppedAttributesCount
        pointer.pointee.flags = record.pointee.flags
        pointer.pointee.trace_id = bytes(record.pointee.traceID)
        pointer.pointee.span_id = bytes(record.pointee.spanID)
        pointer.pointee.event_name = bytes(record.pointee.eventName)
    }
}
