/// A pointer from a span to another span: OTLP's `Span.Link`.
public struct OTLPSpanLink: Sendable, Equatable {
    /// The trace of the linked span.
    public var traceID: OTLPTraceID?
    /// The linked span.
    public var spanID: OTLPSpanID?
    /// W3C `tracestate` of the linked context.
    public var traceState: String
    /// Attributes of the link, in order.
    public var attributes: [OTLPAttribute]
    /// How many attributes were dropped because of limits.
    public var droppedAttributesCount: UInt32
    /// W3C trace flags of the linked context in the low 8 bits; bits 8 and 9 say whether it is remote.
    public var flags: UInt32

    /// A link to the span `spanID` of trace `traceID`.
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
