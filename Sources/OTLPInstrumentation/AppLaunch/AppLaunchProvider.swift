public import Foundation

/// Where launch timing comes from: the process start time and the notifications that mark launch
/// boundaries. ``linux(preWarmFallbackThreshold:procRoot:)`` (the default) and, on UIKit platforms,
/// `uiKit(preWarmFallbackThreshold:)` make the platforms' own; tests and other platforms make theirs with
/// ``init(coldLaunchStartTime:coldEndNotification:warmStartNotification:warmEndNotification:hiddenNotification:preWarmFallbackThreshold:coldLaunchStartName:launchMilestones:)``.
public struct AppLaunchProvider: Sendable {
    /// When the process started: the start of a cold launch.
    package var coldLaunchStartTime: Date
    /// Posted when a cold launch completes.
    package var coldEndNotification: Notification.Name
    /// Posted when the app begins returning to the foreground: the start of a warm launch.
    package var warmStartNotification: Notification.Name
    /// Posted when a warm launch completes.
    package var warmEndNotification: Notification.Name
    /// Posted when the app goes to the background (the "hidden" event): warm launches are recorded only
    /// after one.
    package var hiddenNotification: Notification.Name
    /// Cold launches longer than this (seconds) are `PRE_WARM`; 0 disables this fallback.
    package var preWarmFallbackThreshold: TimeInterval
    /// What the cold launch's start is called in `launch_start_name`.
    package var coldLaunchStartName: String
    /// Notifications that mark steps of a cold launch, in order (UIKit: did finish launching, scene
    /// connected). Each one, the first time it is posted during the cold launch, ends a phase span
    /// `launch.<previous>_to_<this>` that began at the previous milestone (or when the instrumentation
    /// started: `runtime_ready`); a last phase runs from the final milestone to the launch end.
    package var launchMilestones: [Notification.Name]

    /// A provider of these values; the notifications default to the ``OTLPAppLifecycle`` ones a program
    /// posts itself, the threshold to 30 s, the start's name to `process.start`, the milestones to none.
    public init(
        coldLaunchStartTime: Date, coldEndNotification: Notification.Name = OTLPAppLifecycle.didBecomeActive,
        warmStartNotification: Notification.Name = OTLPAppLifecycle.willEnterForeground,
        warmEndNotification: Notification.Name = OTLPAppLifecycle.didBecomeActive,
        hiddenNotification: Notification.Name = OTLPAppLifecycle.didEnterBackground, preWarmFallbackThreshold: TimeInterval = 30,
        coldLaunchStartName: String = "process.start", launchMilestones: [Notification.Name] = []
    ) {
        self.coldLaunchStartTime = coldLaunchStartTime
        self.coldEndNotification = coldEndNotification
        self.warmStartNotification = warmStartNotification
        self.warmEndNotification = warmEndNotification
        self.hiddenNotification = hiddenNotification
        self.preWarmFallbackThreshold = preWarmFallbackThreshold
        self.coldLaunchStartName = coldLaunchStartName
        self.launchMilestones = launchMilestones
    }
}
