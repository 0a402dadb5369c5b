import Logging
import ServiceLifecycle

/// Runs a swift-otel backend's service the way an application does (in a `ServiceGroup`), around the code
/// that produces telemetry.
public enum SwiftOTelService {
    /// Starts `service`, runs `body`, then shuts the service down gracefully and waits for it to finish
    /// (which exports what its batch processor holds). Returns `body`'s result and the wall and CPU seconds
    /// from the start of `body` to the end of the shutdown.
    public static func running<Result>(
        _ service: some Service, _ body: () async throws -> Result
    ) async throws -> (result: Result, wallSeconds: Double, cpuSeconds: Double) {
        let group = ServiceGroup(
            services: [service], gracefulShutdownSignals: [], logger: Logger(label: "benchmark") { _ in SwiftLogNoOpLogHandler() })
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var result: Result?
            let cost = try await ProcessCost.measure {
                result = try await body()
                await group.triggerGracefulShutdown()
                _ = try await tasks.next()
            }
            return (result!, cost.wallSeconds, cost.cpuSeconds)
        }
    }
}
