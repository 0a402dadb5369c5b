public import OTLPWire

/// Limits on what one span or log record may hold, as the OpenTelemetry specification defines them.
/// What a limit removes is counted in the item's `dropped_*_count` fields.
public struct OTLPLimits: Sendable, Equatable, Codable {
    /// Attributes per span or log record. Default 128.
    public var attributeCountLimit: Int
    /// Longest string (or bytes) attribute value, in characters (bytes); longer ones are cut. `nil` (the
    /// default) means no limit.
    public var attributeValueLengthLimit: Int?
    /// Events per span. Default 128.
    public var eventCountLimit: Int
    /// Links per span. Default 128.
    public var linkCountLimit: Int
    /// Attributes per span event. Default 128.
    public var attributePerEventCountLimit: Int
    /// Attributes per span link. Default 128.
    public var attributePerLinkCountLimit: Int

    public init(
        attributeCountLimit: Int = 128, attributeValueLengthLimit: Int? = nil, eventCountLimit: Int = 128, linkCountLimit: Int = 128,
        attributePerEventCountLimit: Int = 128, attributePerLinkCountLimit: Int = 128
    ) {
        self.attributeCountLimit = attributeCountLimit
        self.attributeValueLengthLimit = attributeValueLengthLimit
        self.eventCountLimit = eventCountLimit
        self.linkCountLimit = linkCountLimit
        self.attributePerEventCountLimit = attributePerEventCountLimit
        self.attributePerLinkCountLimit = attributePerLinkCountLimit
    }

    /// Applies every span limit; dropped counts grow by what was removed.
    public func apply(to span: inout OTLPSpan) {
        span.droppedAttributesCount += limit(&span.attributes, attributeCountLimit)
        if span.events.count > eventCountLimit {
            span.droppedEventsCount += UInt32(clamping: span.events.count - eventCountLimit)
            span.events.removeLast(span.events.count - eventCountLimit)
        }
        for index in span.events.indices {
            span.events[index].droppedAttributesCount += limit(&span.events[index].attributes, attributePerEventCountLimit)
        }
        if span.links.count > linkCountLimit {
            span.droppedLinksCount += UInt32(clamping: span.links.count - linkCountLimit)
            span.links.removeLast(span.links.count - linkCountLimit)
        }
        for index in span.links.indices {
            span.links[index].droppedAttributesCount += limit(&span.links[index].attributes, attributePerLinkCountLimit)
        }
    }

    /// Applies the attribute limits to a log record.
    public func apply(to record: inout OTLPLogRecord) {
        record.droppedAttributesCount += limit(&record.attributes, attributeCountLimit)
    }

    /// Keeps the first `count` attributes (cutting long values); returns how many were removed.
    private func limit(_ attributes: inout [OTLPAttribute], _ count: Int) -> UInt32 {
        var removed = 0
        if attributes.count > count {
            removed = attributes.count - count
            attributes.removeLast(removed)
        }
        if let length = attributeValueLengthLimit {
            for index in attributes.indices { attributes[index].value = attributes[index].value.map { Self.truncate($0, length) } }
        }
        return UInt32(clamping: removed)
    }

    static func truncate(_ value: OTLPAttributeValue, _ length: Int) -> OTLPAttributeValue {
        switch value {
        case .string(let string) where string.count > length: .string(String(string.prefix(length)))
        case .bytes(let bytes) where bytes.count > length: .bytes(Array(bytes.prefix(length)))
        case .array(let values): .array(values.map { truncate($0, length) })
        default: value
        }
    }
}
