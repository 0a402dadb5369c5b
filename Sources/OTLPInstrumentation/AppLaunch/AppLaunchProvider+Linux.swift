public import Foundation
package import OTLPWire

#if canImport(Glibc)
import Glibc
#endif

extension AppLaunchProvider {
    /// The default provider on Linux: the process start time from `/proc/self/stat` (field 22, clock ticks
    /// after boot), and the ``OTLPAppLifecycle`` notifications, with ``OTLPAppLifecycle/didFinishLaunching`` as
    /// a launch milestone.
    ///
    /// The start ticks count from boot on the kernel's boot-time clock, so the process's age is that clock
    /// now (`CLOCK_BOOTTIME`) minus the start ticks; the start is the wall clock now minus that age, to within
    /// one clock tick (`sysconf(_SC_CLK_TCK)`, usually 10 ms). (`btime` in `/proc/stat` is whole seconds, and
    /// adding the ticks to it made every launch up to a second too long.)
    ///
    /// - Parameters:
    ///   - preWarmFallbackThreshold: default 30 s; 0 disables the fallback.
    ///   - procRoot: the proc file system (tests point it at a folder of their own).
    public static func linux(preWarmFallbackThreshold: TimeInterval = 30, procRoot: String = "/proc") -> AppLaunchProvider {
        AppLaunchProvider(
            coldLaunchStartTime: processStartTime(procRoot: procRoot) ?? Date(), preWarmFallbackThreshold: preWarmFallbackThreshold,
            coldLaunchStartName: "/proc/self/stat starttime", launchMilestones: [OTLPAppLifecycle.didFinishLaunching])
    }

    /// A process's start as a date, or `nil` when its `stat` file cannot be read.
    /// - Parameters:
    ///   - process: the folder under `procRoot`: `self`, or a process ID.
    ///   - bootClock: nanoseconds since boot on the clock the start ticks count on (`CLOCK_BOOTTIME`).
    ///   - wallClock: the real-time clock the start is given on.
    package static func processStartTime(
        procRoot: String = "/proc",
        process: String = "self",
        ticksPerSecond: Int = Int(sysconf(Int32(_SC_CLK_TCK))),
        bootClock: any OTLPMonotonicClock = OTLPSystemMonotonicClock(),
        wallClock: any OTLPClock = OTLPSystemClock()
    ) -> Date? {
        guard let stat = try? String(contentsOfFile: "\(procRoot)/\(process)/stat", encoding: .utf8) else { return nil }
        // The command name (field 2) is in parentheses and may contain spaces: fields start after the last ')'.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After ')' come field 3 (state) onwards, so field 22 (starttime) is at offset 22 - 3.
        guard fields.count > 19, let startTicks = UInt64(fields[19]), ticksPerSecond > 0 else { return nil }
        let startSinceBootNano = startTicks.multipliedReportingOverflow(by: 1_000_000_000 / UInt64(ticksPerSecond))
        guard !startSinceBootNano.overflow else { return nil }
        let bootNowNano = bootClock.nowMonotonicNano()
        let wallNowNano = wallClock.nowUnixNano()
        let ageNano = bootNowNano > startSinceBootNano.partialValue ? bootNowNano - startSinceBootNano.partialValue : 0
        guard wallNowNano >= ageNano else { return nil }
        return Date(timeIntervalSince1970: Double(wallNowNano - ageNano) / 1e9)
    }
}
