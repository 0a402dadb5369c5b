// OTLPTelemetry.docc/Pipeline.md.
import Logging
import OTLPTelemetry
import OTLPWire
import Tracing

struct TenantProcessor: OTLPStartOnlySpanProcessor {  // acts on start only
    func onStart(_ span: OTLPTracingSpan, parentContext: InstrumentationContext) {
        span.attributes["tenant"] = "acme"
    }
}

struct RedactingProcessor: OTLPLogRecordProcessor {
    func onEmit(_ record: inout OTLPScopedLogRecord, context: InstrumentationContext?) {
        record.record.attributes.removeAll { $0.key == "user.email" }
    }
}

func makeTelemetryWithProcessors(configuration: OTLPTelemetryConfiguration) -> OTLPTelemetry {
    OTLPTelemetry(configuration: configuration, spanProcessors: [TenantProcessor()], logRecordProcessors: [RedactingProcessor()])
}

func recordWhatAlreadyHappened(telemetry: OTLPTelemetry, startUnixNano: UInt64, endUnixNano: UInt64) {
    let span = telemetry.tracer.startSpan("replayed request", at: DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: startUnixNano))
    span.end(at: DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: endUnixNano))

    telemetry.logEmitter.emit(
        OTLPLogRecord(
            timeUnixNano: endUnixNano, severity: .warn,
            body: .keyValueList([OTLPAttribute("status", 503), OTLPAttribute("retried", true)]),
            eventName: "checkout.retry"))
}

struct PaymentDeclined: Error, CustomStringConvertible {
    var description: String { "card declined" }
}

func logAFailure(telemetry: OTLPTelemetry) {
    let logger = Logger(label: "payments") { label in telemetry.logEmitter.logHandler(label: label) }
    logger.error("payment failed", error: PaymentDeclined())  // exception.type and exception.message attributes
}

func handAssembledTracer() {
    let counters = OTLPTelemetryCounters()
    let resource = OTLPResourceDetector.detect(serviceName: "checkout")
    let exporter = OTLPStreamExporter<OTLPScopedSpan>(path: "traces.u32be.bin", resource: resource, counters: counters)
    let tracer = OTLPTracer(exporter: exporter, counters: counters, scope: OTLPInstrumentationScope(name: "checkout"))
    tracer.withSpan("GET /cart") { _ in }
    tracer.shutdown()  // exports what is queued, then shuts the exporter down
    print(counters.snapshot)  // spans: 1 received, 1 exported, dropped 0; …
}
