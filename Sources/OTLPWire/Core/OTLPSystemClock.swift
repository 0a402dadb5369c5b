#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The system's real-time clock (`CLOCK_REALTIME`).
public struct OTLPSystemClock: OTLPClock {
    /// The system clock.
    public init() {}

    public func nowUnixNano() -> UInt64 {
        var time = timespec()
        // CLOCK_REALTIME always exists, so a failure is a broken system, as with the monotonic clock.
        guard clock_gettime(CLOCK_REALTIME, &time) == 0 else {
            preconditionFailure("clock_gettime(CLOCK_REALTIME) failed: errno \(errno)")
        }
        // A clock set before 1970 reads as the epoch rather than trapping on a negative conversion.
        guard time.tv_sec >= 0 else { return 0 }
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
