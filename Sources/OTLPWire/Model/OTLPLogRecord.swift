/// One log record or event: OTLP's `LogRecord`.
public struct OTLPLogRecord: Sendable, Equatable {
    /// When the event happened; 0 when unknown.
    public var timeUnixNano: UInt64
    /// When the record was observed by the process that collected it.
    public var observedTimeUnixNano: UInt64
    /// The severity number; ``OTLPSeverity/unspecified`` when the source gave none.
    public var severity: OTLPSeverity
    /// The severity as the source spelled it (`"Warning"`, `"E"`).
    public var severityText: String
    /// The message; `nil` when the record has no body.
    public var body: OTLPAttributeValue?
    /// Attributes of the record, in order.
    public var attributes: [OTLPAttribute]
    /// How many attributes were dropped because of limits.
    public var droppedAttributesCount: UInt32
    /// W3C trace flags in the low 8 bits.
    public var flags: UInt32
    /// The trace the record belongs to, if any.
    public var traceID: OTLPTraceID?
    /// The span active when the record was emitted, if any.
    public var spanID: OTLPSpanID?
    /// The event this record stands for; empty for plain logs.
    public var eventName: String

    /// A record at `timeUnixNano`, with the other fields empty unless given.
    public init(
        timeUnixNano: UInt64, observedTimeUnixNano: UInt64 = 0, severity: OTLPSeverity = .unspecified,
        severityText: String = "", body: OTLPAttributeValue? = nil, attributes: [OTLPAttribute] = [],
        traceID: OTLPTraceID? = nil, spanID: OTLPSpanID? = nil, flags: UInt32 = 0, eventName: String = "",
        droppedAttributesCount: UInt32 = 0
    ) {
        self.timeUnixNano = timeUnixNano
        self.observedTimeUnixNano = observedTimeUnixNano
        self.severity = severity
        self.severityText = severityText
        self.body = body
        self.attributes = attributes
        self.droppedAttributesCount = droppedAttributesCount
        self.flags = flags
        self.traceID = traceID
        self.spanID = spanID
        self.eventName = eventName
    }
}
