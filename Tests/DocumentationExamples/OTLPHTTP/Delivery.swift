// OTLPHTTP.docc/Delivery.md: run against the test collector on loopback.
import OTLPHTTP
import OTLPTelemetry
import OTLPWire
import Tracing

func deliverSpansAsJSON(endpoint: String) {
    let otlp = OTLPExporterConfiguration(
        endpoint: endpoint, protocol: .httpJSON, compression: .none, headers: ["api-key": "secret"], timeoutSeconds: 5,
        logs: .init(enabled: false))
    let configuration = OTLPTelemetryConfiguration(service: .init(name: "checkout"), otlp: otlp)
    let retries = OTLPHTTPRetryPolicy(initialBackoffSeconds: 0.5, maxBackoffSeconds: 4)
    let telemetry = OTLPTelemetry(configuration: configuration, exporterFactory: OTLPHTTPExporterFactory(retryPolicy: retries))
    telemetry.tracer.withSpan("GET /cart", ofKind: .server) { _ in }
    telemetry.shutdown()
    print(telemetry.deliveryCounters.snapshot)
}

func handAssembledHTTPTracer(endpoint: String) {
    // nil when the signal is disabled or the endpoint is not an http(s) URL with a host
    guard let traces = OTLPExporterConfiguration(endpoint: endpoint).resolved(for: .traces) else { return }
    let counters = OTLPTelemetryCounters()
    let resource = OTLPResourceDetector.detect(serviceName: "checkout")
    let exporter = OTLPHTTPExporter<OTLPScopedSpan>(endpoint: traces, resource: resource, counters: counters)
    let tracer = OTLPTracer(exporter: exporter, counters: counters, scope: OTLPInstrumentationScope(name: "checkout"))
    tracer.withSpan("GET /cart") { _ in }
    tracer.shutdown()  // delivers what is queued
    print(counters.snapshot)
}
