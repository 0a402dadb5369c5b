// README.md, "OTLPHTTP": run by the tests against the test collector on loopback.
import OTLPHTTP
import OTLPTelemetry
import Tracing

func deliverToCollector(endpoint: String) {
    var configuration = OTLPTelemetryConfiguration(service: .init(name: "checkout"))
    configuration.otlp = OTLPExporterConfiguration(endpoint: endpoint)  // "http://localhost:4318"
    let (effective, warnings) = configuration.applyingEnvironment()  // OTEL_* variables win
    for warning in warnings { print(warning) }

    let telemetry = OTLPTelemetry(configuration: effective, exporterFactory: OTLPHTTPExporterFactory())
    telemetry.tracer.withSpan("GET /cart", ofKind: .server) { span in
        span.attributes["http.request.method"] = "GET"
    }
    telemetry.shutdown()  // delivers what is queued, within shutdownTimeoutSeconds (5 s)
    print(telemetry.deliveryCounters.snapshot)  // spans: 1 received, 1 exported, dropped 0; …
}
