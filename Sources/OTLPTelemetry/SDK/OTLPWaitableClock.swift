package import Foundation
package import OTLPWire

/// A monotonic clock that threads wait on: the batch stage's schedule delay, export timeout, shutdown
/// deadline and `whenFull` wait, the HTTP sender's backoff and deadlines. The system's
/// (``OTLPSystemMonotonicClock``) unless one is injected; a test injects one it moves itself
/// (`OTLPManualClock`), so that no test waits real seconds for a retry or a deadline.
package protocol OTLPWaitableClock: OTLPMonotonicClock {
    /// Waits, holding `condition`'s lock, until `condition` is signalled or the clock reads `deadlineNano`
    /// (``nowMonotonicNano()``). Returns `false` at once, without waiting, when the clock reads
    /// `deadlineNano` or later already; otherwise `true` after any wake-up (a signal, the clock moving, or
    /// none at all): callers check their state and the clock, and wait again.
    func wait(on condition: NSCondition, untilMonotonicNano deadlineNano: UInt64) -> Bool
}

extension OTLPWaitableClock {
    /// The clock's reading `seconds` from now, `seconds` kept within one day (NaN: now).
    package func deadlineNano(afterSeconds seconds: Double) -> UInt64 {
        nowMonotonicNano() + Self.nanos(seconds: seconds)
    }

    /// Seconds as nanoseconds, kept within one day (NaN and negative: 0).
    package static func nanos(seconds: Double) -> UInt64 {
        UInt64(OTLPSettingClamp.clamp(seconds, to: 0...86_400, default: 0) * 1e9)
    }

    /// The seconds from now until the clock reads `deadlineNano`; 0 when it does already.
    package func secondsLeft(untilMonotonicNano deadlineNano: UInt64) -> Double {
        let now = nowMonotonicNano()
        return deadlineNano > now ? Double(deadlineNano - now) / 1e9 : 0
    }
}

extension OTLPSystemMonotonicClock: OTLPWaitableClock {
    /// The condition's own timeout follows the wall clock (a clock set back would stretch it), so it is given
    /// at most a second at a time: a slice that ended before the deadline is a wake-up like any other.
    package func wait(on condition: NSCondition, untilMonotonicNano deadlineNano: UInt64) -> Bool {
        let now = nowMonotonicNano()
        guard now < deadlineNano else { return false }
        _ = condition.wait(until: Date(timeIntervalSinceNow: min(1, Double(deadlineNano - now) / 1e9)))
        return true
    }
}
