/// Makes trace and span IDs. IDs MUST NOT be all zeros (W3C Trace Context).
public protocol OTLPIDGenerator: Sendable {
    /// A new trace ID, never all zeros.
    func newTraceID() -> OTLPTraceID
    /// A new span ID, never all zeros.
    func newSpanID() -> OTLPSpanID
}

/// Random IDs from the system's cryptographically secure generator.
public struct OTLPRandomIDGenerator: OTLPIDGenerator {
    /// A generator over `SystemRandomNumberGenerator`.
    public init() {}

    /// 128 random bits, drawn again in the (unlikely) event they are all zeros.
    public func newTraceID() -> OTLPTraceID {
        var generator = SystemRandomNumberGenerator()
        while true {
            let id = OTLPTraceID(high: generator.next(), low: generator.next())
            if !id.isZero { return id }
        }
    }

    /// 64 random bits, drawn again in the (unlikely) event they are all zeros.
    public func newSpanID() -> OTLPSpanID {
        var generator = SystemRandomNumberGenerator()
        while true {
            let id = OTLPSpanID(generator.next())
            if !id.isZero { return id }
        }
    }
}
