internal import COTLPProto
internal import COTLPShims
internal import CProtobufC

extension ProtobufCBuilder {
    /// Fills `pointer` with the span at `span`, read in place (see ``request(_:)``).
    mutating func span(_ span: UnsafePointer<OTLPSpan>, into pointer: UnsafeMutablePointer<PBSpan>) {
        COTLPShims_init_span(pointer)
        scalars(8)  // flags, kind, start, end, three dropped counts, slack
        census.spans &+= 1
        countItemAttributes(span.pointee.attributes.count)
        // 13 fields that occur at most once, and the repeated ones.
        countFields(13 &+ span.pointee.attributes.count &+ span.pointee.events.count &+ span.pointee.links.count)
        pointer.pointee.trace_id = bytes(span.pointee.traceID)
        pointer.pointee.span_id = bytes(span.pointee.spanID)
        pointer.pointee.trace_state = bytes(span.pointee.traceState)
        pointer.pointee.parent_span_id = bytes(span.pointee.parentSpanID)
        pointer.pointee.flags = span.pointee.flags
        pointer.pointee.name = bytes(span.pointee.name)
        pointer.pointee.kind = .init(rawValue: .init(truncatingIfNeeded: span.pointee.kind.rawValue))
        pointer.pointee.start_time_unix_nano = span.pointee.startTimeUnixNano
        pointer.pointee.end_time_unix_nano = span.pointee.endTimeUnixNano
        (pointer.pointee.n_attributes, pointer.pointee.attributes) = keyValues(span.pointee.attributes)
        pointer.pointee.dropped_attributes_count = span.pointee.droppedAttributesCount
        pointer.pointee.dropped_events_count = span.pointee.droppedEventsCount
        pointer.pointee.dropped_links_count = span.pointee.droppedLinksCount
        let eventCount = span.pointee.events.count
        if eventCount > 0 {
            let events = message(PBSpanEvent.self, count: eventCount)
            census.span_events &+= eventCount
            let pointers = allocate(UnsafeMutablePointer<PBSpanEvent>?.self, count: eventCount)
            for index in 0..<eventCount {
                let eventPointer = events + index
                COTLPShims_init_span_event(eventPointer)
                scalars(2)
                eventPointer.pointee.time_unix_nano = span.pointee.events[index].timeUnixNano
                eventPointer.pointee.name = bytes(span.pointee.events[index].name)
                (eventPointer.pointee.n_attributes, eventPointer.pointee.attributes) = keyValues(span.pointee.events[index].attributes)
                eventPointer.pointee.dropped_attributes_count = span.pointee.events[index].droppedAttributesCount
                countItemAttributes(span.pointee.events[index].attributes.count)
                countFields(3 &+ span.pointee.events[index].attributes.count)
                pointers[index] = eventPointer
            }
            pointer.pointee.n_events = eventCount
            pointer.pointee.events = pointers
        }
        let linkCount = span.pointee.links.count
        if linkCount > 0 {
            let links = message(PBSpanLink.self, count: linkCount)
            census.span_links &+= linkCount
            let pointers = allocate(UnsafeMutablePointer<PBSpanLink>?.self, count: linkCount)
            for index in 0..<linkCount {
                let link = span.pointee.links[index]
                let linkPointer = links + index
                COTLPShims_init_span_link(linkPointer)
                scalars(2)
                linkPointer.pointee.trace_id = bytes(link.traceID)
                linkPointer.pointee.span_id = bytes(link.spanID)
                linkPointer.pointee.trace_state = bytes(link.traceState)
                (linkPointer.pointee.n_attributes, linkPointer.pointee.attributes) = keyValues(link.attributes)
                linkPointer.pointee.dropped_attributes_count = link.droppedAttributesCount
                linkPointer.pointee.flags = link.flags
                countItemAttributes(link.attributes.count)
                countFields(5 &+ link.attributes.count)
                pointers[index] = linkPointer
            }
            pointer.pointee.n_links = linkCount
            pointer.pointee.links = pointers
        }
        if let status = span.pointee.status {
            let statusPointer = message(PBStatus.self)
            census.statuses &+= 1
            COTLPShims_init_status(statusPointer)
            scalars(1)
            statusPointer.pointee.message = bytes(status.message)
            statusPointer.pointee.code = .init(rawValue: .init(truncatingIfNeeded: status.code.rawValue))
            pointer.pointee.status = statusPointer
        }
    }
}
