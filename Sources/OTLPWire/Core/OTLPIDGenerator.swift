/// Makes trace and span IDs. IDs MUST NOT be all zeros (W3C Trace Context).
public protocol OTLPIDGenerator: Sendable {
    func newTraceID() -> OTLPTraceID
    func newSpanID() -> OTLPSpanID
}

/// Random IDs from the system's cryptographically secure generator.
public struct OTLPRandomIDGenerator: OTLPIDGenerator {
    public init() {}

    public func newTraceID() -> OTLPTraceID {
        var generator = SystemRandomNumberGenerator()
        while true {
            let id = OTLPTraceID(high: generator.next(), low: generator.next())
            if !id.isZero { return id }
        }
    }

    public func newSpanID() -> OTLPSpanID {
        var generator = SystemRandomNumberGenerator()
        while true {
            let id = OTLPSpanID(generator.next())
            if !id.isZero { return id }
        }
    }
}
