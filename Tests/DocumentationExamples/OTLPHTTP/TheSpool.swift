// OTLPHTTP.docc/TheSpool.md: run twice by the tests, first with no collector listening, then with one.
import OTLPHTTP
import OTLPTelemetry
import Tracing

func spoolThenDeliver(endpoint: String) {
    var configuration = OTLPTelemetryConfiguration(service: .init(name: "checkout"))
    configuration.otlp = OTLPExporterConfiguration(
        endpoint: endpoint, timeoutSeconds: 2,
        spool: OTLPSpoolConfiguration(directory: "spool", maxBytes: 64 << 20, gzip: true))
    let telemetry = OTLPTelemetry(configuration: configuration, exporterFactory: OTLPHTTPExporterFactory())
    telemetry.tracer.withSpan("GET /cart") { _ in }
    telemetry.shutdown()  // uploads what it can by the shutdown deadline; the rest waits in spool/ for the next start
    print(telemetry.deliveryCounters.snapshot)
}
