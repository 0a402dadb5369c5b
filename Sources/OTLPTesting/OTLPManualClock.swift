import Foundation
public import OTLPWire

/// A clock that stands still until the test moves it. Thread-safe.
public final class OTLPManualClock: OTLPClock, @unchecked Sendable {
    private let lock = NSLock()
    private var now: UInt64

    /// A clock standing at `startUnixNano` (default: 2023-11-14 22:13:20 UTC).
    public init(_ startUnixNano: UInt64 = 1_700_000_000_000_000_000) {
        now = startUnixNano
    }

    public func nowUnixNano() -> UInt64 { lock.withLock { now } }

    /// Moves the clock forward by `nanos`.
    public func advance(_ nanos: UInt64) { lock.withLock { now += nanos } }

    /// Moves the clock forward by `seconds`.
    public func advance(seconds: Double) { advance(UInt64(seconds * 1e9)) }
}
