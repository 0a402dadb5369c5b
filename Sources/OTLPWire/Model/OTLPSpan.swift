/// One finished operation within a trace: OTLP's `Span`.
///
/// IDs are optional only so that data read from files round-trips exactly (an empty `bytes` field is
/// `nil`); spans made by instrumentation always have both.
public struct OTLPSpan: Sendable, Equatable {
    /// The trace the span belongs to.
    public var traceID: OTLPTraceID?
    /// The span's own ID.
    public var spanID: OTLPSpanID?
    /// W3C `tracestate` header value.
    public var traceState: String
    /// `nil` for a root span.
    public var parentSpanID: OTLPSpanID?
    /// W3C trace flags in the low 8 bits; bits 8 and 9 say whether the parent is remote.
    public var flags: UInt32
    /// What the operation is (`GET /cart`).
    public var name: String
    /// The span's role in a request.
    public var kind: OTLPSpanKind
    /// When the operation started.
    public var startTimeUnixNano: UInt64
    /// When the operation ended.
    public var endTimeUnixNano: UInt64
    /// Attributes of the span, in order.
    public var attributes: [OTLPAttribute]
    /// How many attributes were dropped because of limits.
    public var droppedAttributesCount: UInt32
    /// Events recorded during the span, in order.
    public var events: [OTLPSpanEvent]
    /// How many events were dropped because of limits.
    public var droppedEventsCount: UInt32
    /// Links to other spans, in order.
    public var links: [OTLPSpanLink]
    /// How many links were dropped because of limits.
    public var droppedLinksCount: UInt32
    /// `nil` when no status was recorded; OTLP then reads the status as unset.
    public var status: OTLPSpanStatus?

    /// A span named `name` between two instants, with the other fields empty unless given.
    public init(
        traceID: OTLPTraceID?, spanID: OTLPSpanID?, parentSpanID: OTLPSpanID? = nil, name: String,
        kind: OTLPSpanKind = .internal, startTimeUnixNano: UInt64, endTimeUnixNano: UInt64,
        attributes: [OTLPAttribute] = [], events: [OTLPSpanEvent] = [], links: [OTLPSpanLink] = [],
        status: OTLPSpanStatus? = nil, traceState: String = "", flags: UInt32 = 0,
        droppedAttributesCount: UInt32 = 0, droppedEventsCount: UInt32 = 0, droppedLinksCount: UInt32 = 0
    ) {
        self.traceID = traceID
        self.spanID = spanID
        self.traceState = traceState
        self.parentSpanID = parentSpanID
        self.flags = flags
        self.name = name
        self.kind = kind
        self.startTimeUnixNano = startTimeUnixNano
        self.endTimeUnixNano = endTimeUnixNano
        self.attributes = attributes
        self.droppedAttributesCount = droppedAttributesCount
        self.events = events
        self.droppedEventsCount = droppedEventsCount
        self.links = links
        self.droppedLinksCount = droppedLinksCount
        self.status = status
    }

    /// End minus start, in nanoseconds; 0 when the end is before the start.
    public var durationNano: UInt64 { endTimeUnixNano >= startTimeUnixNano ? endTimeUnixNano - startTimeUnixNano : 0 }
}
