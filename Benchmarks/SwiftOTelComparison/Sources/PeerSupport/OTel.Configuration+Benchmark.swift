import Logging
import OTel

extension OTel.Configuration {
    /// swift-otel's defaults for one benchmark process: `serviceName`, its diagnostic warnings counted into
    /// `lost` (and printed to standard error), metrics and logs off, traces always sampled.
    public static func benchmark(serviceName: String, lost: SwiftOTelDiagnostics.LostItems) -> Self {
        var configuration = OTel.Configuration.default
        configuration.serviceName = serviceName
        configuration.diagnosticLogger = .custom(Logger(label: "swift-otel") { _ in SwiftOTelDiagnostics(lost: lost) })
        configuration.diagnosticLogLevel = .warning
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        configuration.traces.sampler = .alwaysOn
        return configuration
    }
}
