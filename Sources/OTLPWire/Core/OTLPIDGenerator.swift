/// Makes trace and span IDs. IDs MUST NOT be all zeros (W3C Trace Context).
public protocol OTLPIDGenerator: Sendable {
    /// A new trace ID, never all zeros.
    func newTraceID() -> OTLPTraceID
    /// A new span ID, never all zeros.
    func newSpanID() -> OTLPSpanID
}
