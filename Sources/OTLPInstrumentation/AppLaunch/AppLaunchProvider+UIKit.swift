#if canImport(UIKit) && canImport(Darwin)
public import Foundation
import Darwin
public import UIKit

extension AppLaunchProvider {
    /// The default provider on UIKit platforms: process start from `kinfo_proc` (sysctl), launch boundaries
    /// from UIKit's application notifications, with did finish launching and scene connected as launch
    /// milestones.
    /// - Parameter preWarmFallbackThreshold: default 30 s; 0 disables the fallback.
    public static func uiKit(preWarmFallbackThreshold: TimeInterval = 30) -> AppLaunchProvider {
        AppLaunchProvider(
            coldLaunchStartTime: kernelProcessStartTime() ?? Date(),
            coldEndNotification: UIApplication.didBecomeActiveNotification,
            warmStartNotification: UIApplication.willEnterForegroundNotification,
            warmEndNotification: UIApplication.didBecomeActiveNotification,
            hiddenNotification: UIApplication.didEnterBackgroundNotification, preWarmFallbackThreshold: preWarmFallbackThreshold,
            coldLaunchStartName: "kp_proc.p_starttime",
            launchMilestones: [UIApplication.didFinishLaunchingNotification, UIScene.willConnectNotification])
    }

    /// This process's start time from the kernel's process table.
    package static func kernelProcessStartTime() -> Date? {
        var info = kinfo_proc()
        var size = MemoryLayout<kinfo_proc>.stride
        var mib: [Int32] = [CTL_KERN, KERN_PROC, KERN_PROC_PID, getpid()]
        guard sysctl(&mib, u_int(mib.count), &info, &size, nil, 0) == 0 else { return nil }
        let start = info.kp_proc.p_un.__p_starttime
        return Date(timeIntervalSince1970: Double(start.tv_sec) + Double(start.tv_usec) / 1_000_000)
    }
}
#endif
