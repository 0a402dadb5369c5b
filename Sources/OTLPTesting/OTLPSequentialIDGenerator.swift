import Foundation
public import OTLPWire

/// IDs counting up from 1 (trace and span IDs share the counter): readable and deterministic.
public final class OTLPSequentialIDGenerator: OTLPIDGenerator, @unchecked Sendable {
    private let lock = NSLock()
    private var next: UInt64 = 0

    public init() {}

    public func newTraceID() -> OTLPTraceID { lock.withLock { next += 1; return OTLPTraceID(high: 0, low: next) } }
    public func newSpanID() -> OTLPSpanID { lock.withLock { next += 1; return OTLPSpanID(next) } }
}
