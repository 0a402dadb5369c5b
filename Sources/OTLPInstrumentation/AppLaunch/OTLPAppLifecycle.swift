public import Foundation

/// Notification names a Linux program (a service, a CLI tool) posts through `NotificationCenter` to mark
/// its own launch boundaries, the way UIKit posts its application notifications.
public enum OTLPAppLifecycle {
    /// Post when the program is ready (the end of a launch): UIKit's `didBecomeActive`.
    public static let didBecomeActive = Notification.Name("OTLPWireApplicationDidBecomeActive")
    /// Post when the program resumes (the start of a warm launch): UIKit's `willEnterForeground`.
    public static let willEnterForeground = Notification.Name("OTLPWireApplicationWillEnterForeground")
    /// Post when the program goes idle or to the background: UIKit's `didEnterBackground`.
    public static let didEnterBackground = Notification.Name("OTLPWireApplicationDidEnterBackground")
    /// Post when the program's own start-up work is done, before it is ready: UIKit's `didFinishLaunching`.
    /// A launch milestone of ``AppLaunchProvider/linux(preWarmFallbackThreshold:procRoot:)``.
    public static let didFinishLaunching = Notification.Name("OTLPWireApplicationDidFinishLaunching")
}
