import Foundation

extension NSCondition {
    /// Waits (the lock held) until signalled or `deadline` on the monotonic clock; returns whether it may have
    /// been signalled. The condition's own timeout follows the wall clock (a clock set back would stretch it),
    /// so it is given at most a second at a time, and a slice that ended before the deadline counts as a
    /// wake-up: callers check their state and wait again.
    package func wait(until deadline: ContinuousClock.Instant) -> Bool {
        let left = ContinuousClock.now.duration(to: deadline)
        guard left > .zero else { return false }
        let seconds = Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
        return wait(until: Date(timeIntervalSinceNow: min(1, seconds))) || seconds > 1
    }
}
