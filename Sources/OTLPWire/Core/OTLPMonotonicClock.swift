/// Where the SDK measures time intervals (how long a session has been idle, how long since a write): a clock
/// that never goes back, whatever is done to the wall clock (``OTLPClock``). Its readings mean nothing on
/// their own; only the difference between two readings of the same clock, in the same boot, does. Inject one
/// in tests that move time themselves (`OTLPManualClock` is one).
package protocol OTLPMonotonicClock: Sendable {
    /// Nanoseconds since a fixed point of the clock's choosing; never less than an earlier reading.
    func nowMonotonicNano() -> UInt64
}
