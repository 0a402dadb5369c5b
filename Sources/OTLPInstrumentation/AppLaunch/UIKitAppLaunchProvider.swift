#if canImport(UIKit) && canImport(Darwin)
public import Foundation
import Darwin
public import UIKit

/// The default provider on UIKit platforms: process start from `kinfo_proc` (sysctl), launch boundaries
/// from UIKit's application notifications.
public struct UIKitAppLaunchProvider: AppLaunchProvider {
    public let coldLaunchStartTime: Date
    public let coldEndNotification = UIApplication.didBecomeActiveNotification
    public let warmStartNotification = UIApplication.willEnterForegroundNotification
    public let warmEndNotification = UIApplication.didBecomeActiveNotification
    public let hiddenNotification = UIApplication.didEnterBackgroundNotification
    public let preWarmFallbackThreshold: TimeInterval
    public var coldLaunchStartName: String { "kp_proc.p_starttime" }
    public var launchMilestones: [Notification.Name] {
        [UIApplication.didFinishLaunchingNotification, UIScene.willConnectNotification]
    }

    /// - Parameter preWarmFallbackThreshold: default 30 s; 0 disables the fallback.
    public init(preWarmFallbackThreshold: TimeInterval = 30) {
        self.preWarmFallbackThreshold = preWarmFallbackThreshold
        coldLaunchStartTime = Self.processStartTime() ?? Date()
    }

    /// This process's start time from the kernel's process table.
    package static func processStartTime() -> Date? {
        var info = kinfo_proc()
        var size = MemoryLayout<kinfo_proc>.stride
        var mib: [Int32] = [CTL_KERN, KERN_PROC, KERN_PROC_PID, getpid()]
        guard sysctl(&mib, u_int(mib.count), &info, &size, nil, 0) == 0 else { return nil }
        let start = info.kp_proc.p_un.__p_starttime
        return Date(timeIntervalSince1970: Double(start.tv_sec) + Double(start.tv_usec) / 1_000_000)
    }
}
#endif
