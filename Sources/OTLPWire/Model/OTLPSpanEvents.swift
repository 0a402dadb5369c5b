/// Something that happened at one instant during a span: OTLP's `Span.Event`.
public struct OTLPSpanEvent: Sendable, Equatable {
    public var timeUnixNano: UInt64
    public var name: String
    public var attributes: [OTLPAttribute]
    public var droppedAttributesCount: UInt32

    public init(name: String, timeUnixNano: UInt64, attributes: [OTLPAttribute] = [], droppedAttributesCount: UInt32 = 0) {
        self.name = name
        self.timeUnixNano = timeUnixNano
        self.attributes = attributes
        self.droppedAttributesCount = droppedAttributesCount
    }
}

/// A pointer from a span to another span: OTLP's `Span.Link`.
public struct OTLPSpanLink: Sendable, Equatable {
    public var traceID: OTLPTraceID?
    public var spanID: OTLPSpanID?
    public var traceState: String
    public var attributes: [OTLPAttribute]
    public var droppedAttributesCount: UInt32
    /// W3C trace flags of the linked context in the low 8 bits; bits 8 and 9 say whether it is remote.
    public var flags: UInt32

    public init(
        traceID: OTLPTraceID?, spanID: OTLPSpanID?, traceState: String = "", attributes: [OTLPAttribute] = [],
        droppedAttributesCount: UInt32 = 0, flags: UInt32 = 0
    ) {
        self.traceID = traceID
        self.spanID = spanID
        self.traceState = traceState
        self.attributes = attributes
        self.droppedAttributesCount = droppedAttributesCount
        self.flags = flags
    }
}
