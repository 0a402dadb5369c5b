/// Something that happened at one instant during a span: OTLP's `Span.Event`.
public struct OTLPSpanEvent: Sendable, Equatable {
    /// When it happened.
    public var timeUnixNano: UInt64
    /// What happened (`exception`, `cache.miss`).
    public var name: String
    /// Attributes of the event, in order.
    public var attributes: [OTLPAttribute]
    /// How many attributes were dropped because of limits.
    public var droppedAttributesCount: UInt32

    /// An event named `name` at `timeUnixNano`.
    public init(name: String, timeUnixNano: UInt64, attributes: [OTLPAttribute] = [], droppedAttributesCount: UInt32 = 0) {
        self.name = name
        self.timeUnixNano = timeUnixNano
        self.attributes = attributes
        self.droppedAttributesCount = droppedAttributesCount
    }
}
