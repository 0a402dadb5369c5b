#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the SDK reads wall-clock time. Inject one in tests and instrumentations that need a fixed clock.
public protocol OTLPClock: Sendable {
    /// Nanoseconds since the Unix epoch.
    func nowUnixNano() -> UInt64
}

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
