package import Foundation
import OTLPTelemetry
public import OTLPWire

/// A clock that stands still until the test moves it. Thread-safe. It is a monotonic clock too
/// (`OTLPMonotonicClock`): moving it moves the wall-clock time and the intervals measured
/// together, as real time passing does.
public final class OTLPManualClock: OTLPClock, OTLPMonotonicClock, @unchecked Sendable {
    /// Guards the reading and the waits; signalled when a thread starts waiting on the clock.
    private let state = NSCondition()
    private var now: UInt64
    /// The threads waiting on the clock now: the condition each waits on and the reading it waits for.
    private var waits: [Int: (condition: NSCondition, deadlineNano: UInt64)] = [:]
    private var nextWait = 0
    private var jumpsToDeadlines = false

    /// A clock standing at `startUnixNano` (default: 2023-11-14 22:13:20 UTC).
    public init(_ startUnixNano: UInt64 = 1_700_000_000_000_000_000) {
        now = startUnixNano
    }

    public func nowUnixNano() -> UInt64 { state.withLock { now } }

    /// The same reading as ``nowUnixNano()``: as a monotonic clock it never goes back, since the clock only
    /// moves forward.
    package func nowMonotonicNano() -> UInt64 { nowUnixNano() }

    /// Moves the clock forward by `nanos`, waking the threads waiting on it (they check the time again).
    package func advance(_ nanos: UInt64) {
        let conditions = state.withLock {
            now += nanos
            return waits.values.map(\.condition)
        }
        // Each condition's lock is taken before it is signalled: a thread that read the old time and is
        // about to wait holds it, so the signal cannot come before its wait and be lost.
        for condition in conditions {
            condition.lock()
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Moves the clock forward by `seconds`.
    public func advance(seconds: Double) { advance(UInt64(seconds * 1e9)) }
}

extension OTLPManualClock: OTLPWaitableClock {
    /// Waits until `condition` is signalled or the clock is moved (``advance(_:)``); the real time that
    /// passes meanwhile does not count. After ``jumpToDeadlines()`` the clock moves to `deadlineNano` at once
    /// instead, as if the time had passed.
    package func wait(on condition: NSCondition, untilMonotonicNano deadlineNano: UInt64) -> Bool {
        state.lock()
        guard now < deadlineNano else {
            state.unlock()
            return false
        }
        if jumpsToDeadlines {
            now = deadlineNano
            state.unlock()
            return true
        }
        let id = nextWait
        nextWait += 1
        waits[id] = (condition, deadlineNano)
        state.broadcast()
        state.unlock()
        condition.wait()
        state.withLock { waits[id] = nil }
        return true
    }

    /// From now on, a thread that waits on the clock moves it to the end of its wait at once, as if that
    /// time had passed, and goes on: for code that waits on its own thread, one wait at a time (a sender's
    /// backoff between attempts), so that a test runs through minutes of retries in no time and reads how
    /// long they took from the clock. Other threads waiting on the clock then are not woken.
    package func jumpToDeadlines() {
        state.withLock { jumpsToDeadlines = true }
    }

    /// Blocks until at least `count` threads wait on the clock for a reading of at most `deadlineNano`: the
    /// moment to ``advance(_:)`` it, so that the waits the test means to end have begun.
    package func waitUntilWaiting(atLeast count: Int = 1, untilAtMost deadlineNano: UInt64 = .max) {
        state.lock()
        defer { state.unlock() }
        while waits.values.count(where: { $0.deadlineNano <= deadlineNano }) < count { state.wait() }
    }
}
