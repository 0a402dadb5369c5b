// README.md, "OTLPTelemetry": run by the tests in a child process of its own (bootstrap is once per process).
import Logging
import OTLPTelemetry
import Tracing

func runCheckoutWithTelemetry() {
    let telemetry = OTLPTelemetry(
        configuration: .init(
            service: .init(name: "checkout", version: "1.4.0"),
            traces: .init(path: "traces.u32be.bin"),
            logs: .init(path: "logs.u32be.bin.gz", gzip: true)))
    telemetry.bootstrap()  // InstrumentationSystem (swift-distributed-tracing) and LoggingSystem (swift-log)

    let logger = Logger(label: "cart")
    withSpan("GET /cart", ofKind: .server) { span in
        span.attributes["http.request.method"] = "GET"
        logger.info("cart loaded", metadata: ["items": "3"])  // carries the span's trace and span IDs
    }
    telemetry.shutdown()  // exports everything queued; reports anything dropped
}
