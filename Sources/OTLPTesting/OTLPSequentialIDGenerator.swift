import Foundation
public import OTLPWire

/// IDs counting up from 1 (trace and span IDs share the counter): readable and deterministic.
public final class OTLPSequentialIDGenerator: OTLPIDGenerator, @unchecked Sendable {
    private let lock = NSLock()
    private var next: UInt64 = 0

    /// A generator whose first ID is 1.
    public init() {}

    /// The next number, as the low half of a trace ID.
    public func newTraceID() -> OTLPTraceID {
        lock.withLock {
            next += 1; return OTLPTraceID(high: 0, low: next)
        }
    }
    /// The next number, as a span ID.
    public func newSpanID() -> OTLPSpanID {
        lock.withLock {
            next += 1; return OTLPSpanID(next)
        }
    }
}
