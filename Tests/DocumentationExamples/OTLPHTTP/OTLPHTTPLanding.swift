// OTLPHTTP.docc/OTLPHTTP.md (the landing page): run in a child process of its own (bootstrap), with
// OTEL_EXPORTER_OTLP_ENDPOINT naming the test collector.
import OTLPHTTP
import OTLPTelemetry
import Tracing

func deliverAsTheEnvironmentSays() {
    let (configuration, warnings) = OTLPTelemetryConfiguration.default.applyingEnvironment()
    for warning in warnings { print(warning) }
    let telemetry = OTLPTelemetry(configuration: configuration, exporterFactory: OTLPHTTPExporterFactory())
    telemetry.bootstrap()
    withSpan("GET /cart", ofKind: .server) { _ in }
    telemetry.shutdown()  // delivers what is queued, within shutdownTimeoutSeconds (5 s)
    print(telemetry.deliveryCounters.snapshot)
}
