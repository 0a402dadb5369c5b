public import Foundation

/// Where launch timing comes from: the process start time and the notifications that mark launch
/// boundaries. The default providers are ``LinuxAppLaunchProvider`` and, on UIKit platforms, the UIKit
/// one; tests and other platforms supply their own.
public protocol AppLaunchProvider: Sendable {
    /// When the process started: the start of a cold launch.
    var coldLaunchStartTime: Date { get }
    /// Posted when a cold launch completes.
    var coldEndNotification: Notification.Name { get }
    /// Posted when the app begins returning to the foreground: the start of a warm launch.
    var warmStartNotification: Notification.Name { get }
    /// Posted when a warm launch completes.
    var warmEndNotification: Notification.Name { get }
    /// Posted when the app goes to the background (the "hidden" event): warm launches are recorded only
    /// after one.
    var hiddenNotification: Notification.Name { get }
    /// Cold launches longer than this (seconds) are `PRE_WARM`; 0 disables this fallback.
    var preWarmFallbackThreshold: TimeInterval { get }
    /// What the cold launch's start is called in `launch_start_name`.
    var coldLaunchStartName: String { get }
    /// Notifications that mark steps of a cold launch, in order (UIKit: did finish launching, scene
    /// connected). Each one, the first time it is posted during the cold launch, ends a phase span
    /// `launch.<previous>_to_<this>` that began at the previous milestone (or when the instrumentation
    /// started: `runtime_ready`); a last phase runs from the final milestone to the launch end. Default: none.
    var launchMilestones: [Notification.Name] { get }
}

extension AppLaunchProvider {
    public var coldLaunchStartName: String { "process.start" }
    public var launchMilestones: [Notification.Name] { [] }
}
