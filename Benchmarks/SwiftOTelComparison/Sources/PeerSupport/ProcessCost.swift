#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// What running code cost the whole process: wall seconds, CPU seconds (user + system, every thread),
/// and the process's peak resident memory.
public enum ProcessCost {
    /// Process CPU time (user + system) so far, in seconds.
    public static func cpuSeconds() -> Double {
        let usage = resourceUsage()
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The process's peak resident set size so far, in bytes.
    public static func peakResidentBytes() -> Int {
        #if canImport(Darwin)
        Int(resourceUsage().ru_maxrss)  // bytes on Darwin
        #else
        Int(resourceUsage().ru_maxrss) * 1024  // kilobytes on Linux
        #endif
    }

    /// Monotonic nanoseconds, for intervals.
    public static func nowNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Runs `body` and returns its wall and process CPU seconds.
    public static func measure(_ body: () async throws -> Void) async rethrows -> (wallSeconds: Double, cpuSeconds: Double) {
        let cpu = cpuSeconds()
        let start = nowNanoseconds()
        try await body()
        let wall = Double(nowNanoseconds() - start) / 1e9
        return (wall, cpuSeconds() - cpu)
    }

    /// Runs `body` and returns its wall and process CPU seconds.
    public static func measureSync(_ body: () -> Void) -> (wallSeconds: Double, cpuSeconds: Double) {
        let cpu = cpuSeconds()
        let start = nowNanoseconds()
        body()
        let wall = Double(nowNanoseconds() - start) / 1e9
        return (wall, cpuSeconds() - cpu)
    }

    private static func resourceUsage() -> rusage {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return usage
    }
}
