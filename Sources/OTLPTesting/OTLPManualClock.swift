import Foundation
public import OTLPWire

/// A clock that stands still until the test moves it. Thread-safe. It is a monotonic clock too
/// (`OTLPMonotonicClock`): moving it moves the wall-clock time and the intervals measured
/// together, as real time passing does.
public final class OTLPManualClock: OTLPClock, OTLPMonotonicClock, @unchecked Sendable {
    private let lock = NSLock()
    private var now: UInt64

    /// A clock standing at `startUnixNano` (default: 2023-11-14 22:13:20 UTC).
    public init(_ startUnixNano: UInt64 = 1_700_000_000_000_000_000) {
        now = startUnixNano
    }

    public func nowUnixNano() -> UInt64 { lock.withLock { now } }

    /// The same reading as ``nowUnixNano()``: as a monotonic clock it never goes back, since the clock only
    /// moves forward.
    public func nowMonotonicNano() -> UInt64 { nowUnixNano() }

    /// Moves the clock forward by `nanos`.
    public func advance(_ nanos: UInt64) { lock.withLock { now += nanos } }

    /// Moves the clock forward by `seconds`.
    public func advance(seconds: Double) { advance(UInt64(seconds * 1e9)) }
}
