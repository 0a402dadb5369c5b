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
        clock_gettime(CLOCK_REALTIME, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
