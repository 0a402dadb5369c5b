// The examples in the doc comments of OTLPTelemetry's types (Sources/OTLPTelemetry).
import Foundation
import Logging
import OTLPTelemetry
import OTLPWire
import Tracing

func runOneCheckout() {
    let telemetry = OTLPTelemetry(
        configuration: .init(
            service: .init(name: "checkout"),
            traces: .init(path: "traces.u32be.bin"), logs: .init(path: "logs.u32be.bin")))
    telemetry.bootstrap()  // swift-distributed-tracing and swift-log
    withSpan("checkout") { _ in Logger(label: "cart").info("paid") }
    telemetry.shutdown()  // exports everything; reports drops
}

func bootstrapBesideStandardOutput(telemetry: OTLPTelemetry) {
    telemetry.bootstrapTracing()
    LoggingSystem.bootstrap(
        { label, provider in
            MultiplexLogHandler([
                telemetry.logEmitter.logHandler(label: label, metadataProvider: provider),
                StreamLogHandler.standardOutput(label: label, metadataProvider: provider),
            ])
        }, metadataProvider: .otlpTraceContext)
}

func startFromAFileAndTheEnvironment(url: URL) throws -> OTLPTelemetry {
    let (configuration, warnings) = try OTLPTelemetryConfiguration.load(contentsOf: url).configuration.applyingEnvironment()
    warnings.forEach { print($0) }  // environment variable OTEL_BSP_MAX_QUEUE_SIZE (not a whole number: "lots"; ignored)
    return OTLPTelemetry(configuration: configuration)
}

func traceWithATracerOfYourOwn(resource: OTLPResource) {
    let counters = OTLPTelemetryCounters()
    let exporter = OTLPStreamExporter<OTLPScopedSpan>(path: "traces.u32be.bin", resource: resource, counters: counters)
    let tracer = OTLPTracer(exporter: exporter, counters: counters, scope: OTLPInstrumentationScope(name: "checkout"))
    InstrumentationSystem.bootstrap(tracer)
    withSpan("GET /cart") { span in span.attributes["cart.items"] = 3 }
    tracer.shutdown()  // exports what is queued
}

func bootstrapLoggingOnly(emitter: OTLPLogEmitter) {
    LoggingSystem.bootstrap { label in emitter.logHandler(label: label) }
}
