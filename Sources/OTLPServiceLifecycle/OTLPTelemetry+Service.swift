import Foundation
public import OTLPTelemetry
public import ServiceLifecycle

/// The telemetry as a service of a swift-service-lifecycle `ServiceGroup`: it runs until the group shuts down,
/// then shuts the telemetry down, so that what is queued is exported before the program ends.
///
/// A group shuts its services down in the reverse order of its list: put the telemetry first, and it shuts
/// down last, after the services whose spans and log records it exports.
extension OTLPTelemetry: Service {
    /// Waits until the group shuts down gracefully (or this task is cancelled), then shuts the telemetry down
    /// (``OTLPTelemetry/OTLPTelemetry/shutdown()``: it exports what is queued, within the configuration's
    /// `shutdownTimeoutSeconds`), and returns.
    public func run() async throws {
        // Graceful shutdown and cancellation both end the wait: either way the telemetry is shut down, and
        // run() returns normally.
        try? await gracefulShutdown()
        // shutdown() blocks while it exports: on a thread of its own, not one of Swift concurrency's.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                self.shutdown()
                continuation.resume()
            }
            thread.name = "OTLPTelemetry shutdown"
            thread.start()
        }
    }
}
