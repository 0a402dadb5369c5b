/// A measurement recorded alongside a data point, with the trace it was taken in: OTLP's `Exemplar`.
public struct OTLPExemplar: Sendable, Equatable {
    /// The measurement's attributes that the aggregation left out of the point, in order.
    public var filteredAttributes: [OTLPAttribute]
    /// When the measurement was taken.
    public var timeUnixNano: UInt64
    /// The measured value; `nil` when the exemplar carries none.
    public var value: OTLPNumberValue?
    /// The span active when the measurement was taken, if any.
    public var spanID: OTLPSpanID?
    /// The trace active when the measurement was taken, if any.
    public var traceID: OTLPTraceID?

    /// An exemplar taken at `timeUnixNano`, with the other fields empty unless given.
    public init(
        timeUnixNano: UInt64, value: OTLPNumberValue? = nil, filteredAttributes: [OTLPAttribute] = [],
        traceID: OTLPTraceID? = nil, spanID: OTLPSpanID? = nil
    ) {
        self.filteredAttributes = filteredAttributes
        self.timeUnixNano = timeUnixNano
        self.value = value
        self.spanID = spanID
        self.traceID = traceID
    }
}
