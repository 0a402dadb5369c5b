public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The default provider on Linux: the process start time from `/proc/self/stat` (field 22, clock ticks
/// after boot) plus the boot time (`btime` in `/proc/stat`), and the ``OTLPAppLifecycle`` notifications.
public struct LinuxAppLaunchProvider: AppLaunchProvider {
    public let coldLaunchStartTime: Date
    public let coldEndNotification = OTLPAppLifecycle.didBecomeActive
    public let warmStartNotification = OTLPAppLifecycle.willEnterForeground
    public let warmEndNotification = OTLPAppLifecycle.didBecomeActive
    public let hiddenNotification = OTLPAppLifecycle.didEnterBackground
    public let preWarmFallbackThreshold: TimeInterval
    public var coldLaunchStartName: String { "/proc/self/stat starttime" }
    public var launchMilestones: [Notification.Name] { [OTLPAppLifecycle.didFinishLaunching] }

    /// - Parameters:
    ///   - preWarmFallbackThreshold: default 30 s; 0 disables the fallback.
    ///   - procRoot: the proc file system (tests point it at a folder of their own).
    public init(preWarmFallbackThreshold: TimeInterval = 30, procRoot: String = "/proc") {
        self.preWarmFallbackThreshold = preWarmFallbackThreshold
        coldLaunchStartTime = Self.processStartTime(procRoot: procRoot) ?? Date()
    }

    /// Process start as a date, or `nil` when /proc cannot be read.
    package static func processStartTime(procRoot: String = "/proc", ticksPerSecond: Int = Int(sysconf(Int32(_SC_CLK_TCK)))) -> Date? {
        guard let stat = try? String(contentsOfFile: "\(procRoot)/self/stat", encoding: .utf8),
            let system = try? String(contentsOfFile: "\(procRoot)/stat", encoding: .utf8)
        else { return nil }
        // The command name (field 2) is in parentheses and may contain spaces: fields start after the last ')'.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After ')' come field 3 (state) onwards, so field 22 (starttime) is at offset 22 - 3.
        guard fields.count > 19, let startTicks = Double(fields[19]), ticksPerSecond > 0 else { return nil }
        guard let line = system.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
            let bootTime = Double(line.dropFirst(6).trimmingCharacters(in: .whitespaces))
        else { return nil }
        return Date(timeIntervalSince1970: bootTime + startTicks / Double(ticksPerSecond))
    }
}
