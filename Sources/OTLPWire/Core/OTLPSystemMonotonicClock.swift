#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The system's monotonic clock, counting the time the system was suspended too (a session is idle while
/// the device sleeps): `CLOCK_BOOTTIME` on Linux, `CLOCK_MONOTONIC` on Darwin (which counts sleep).
package struct OTLPSystemMonotonicClock: OTLPMonotonicClock {
    /// The system's monotonic clock.
    package init() {}

    /// Nanoseconds since the system booted. Linux kernels without `CLOCK_BOOTTIME` (before 2.6.39) fall back
    /// to `CLOCK_MONOTONIC`; a system with neither stops the process (POSIX requires `CLOCK_MONOTONIC`).
    package func nowMonotonicNano() -> UInt64 {
        var time = timespec()
        #if os(Linux)
        if clock_gettime(CLOCK_BOOTTIME, &time) == 0 { return Self.nanos(time) }
        #endif
        guard clock_gettime(CLOCK_MONOTONIC, &time) == 0 else {
            preconditionFailure("clock_gettime(CLOCK_MONOTONIC) failed: errno \(errno)")
        }
        return Self.nanos(time)
    }

    private static func nanos(_ time: timespec) -> UInt64 {
        UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
