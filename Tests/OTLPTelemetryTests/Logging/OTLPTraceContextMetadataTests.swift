import Foundation
import Logging
import OTLPTesting
import OTLPWire
import Testing
import Tracing

@testable import OTLPTelemetry

/// The metadata provider that puts the active span's IDs into every log call's metadata.
@Suite("Logger.MetadataProvider.otlpTraceContext")
struct OTLPTraceContextMetadataTests {
    @Test("inside a span: trace_id and span_id of the active span, lowercase hex; outside: nothing")
    func activeSpan() throws {
        let tracer = OTLPTracer(
            exporter: OTLPStreamExporter<OTLPScopedSpan>(sink: OTLPMemorySink(), resource: OTLPResource()), batch: nil,
            counters: OTLPTelemetryCounters(), scope: OTLPInstrumentationScope(name: "tests"),
            idGenerator: OTLPSequentialIDGenerator())
        #expect(Logger.MetadataProvider.otlpTraceContext.get().isEmpty)
        let (metadata, spanContext) = tracer.withSpan("work") { span in
            (Logger.MetadataProvider.otlpTraceContext.get(), span.context.otlpSpanContext)
        }
        let context = try #require(spanContext)
        #expect(metadata == ["trace_id": .string(context.traceID.hex), "span_id": .string(context.spanID.hex)])
        #expect(context.traceID.hex.count == 32 && context.traceID.hex == context.traceID.hex.lowercased())
        #expect(context.spanID.hex.count == 16 && context.spanID.hex == context.spanID.hex.lowercased())
        // A child span's own ID.
        let child = tracer.withSpan("outer") { outer in
            tracer.withSpan("inner", context: outer.context) { inner in
                (Logger.MetadataProvider.otlpTraceContext.get(), inner.context.otlpSpanContext!)
            }
        }
        #expect(child.0["span_id"] == .string(child.1.spanID.hex) && child.0["trace_id"] == .string(child.1.traceID.hex))
    }

    @Test("the log handler with the provider: the IDs go into the record's trace context fields, not repeated as attributes")
    func logHandlerWithProvider() throws {
        let sink = OTLPMemorySink()
        let counters = OTLPTelemetryCounters()
        let emitter = OTLPLogEmitter(
            stage: OTLPSimpleStage(
                exporter: OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, resource: OTLPResource(), counters: counters),
                counters: counters),
            scope: OTLPInstrumentationScope(name: "logs"), clock: OTLPManualClock())
        let logger = Logger(label: "checkout") { label in
            OTLPLogHandler(label: label, emitter: emitter, metadataProvider: .otlpTraceContext)
        }
        let spanContext = OTLPSpanContext(traceID: OTLPTraceID(high: 0xAB, low: 0xCD), spanID: OTLPSpanID(0xEF))
        var context = InstrumentationContext.topLevel
        context.otlpSpanContext = spanContext
        InstrumentationContext.withValue(context) {
            logger.info("inside")
            // Metadata of these names that names another trace is the caller's: kept.
            logger.info("foreign", metadata: ["trace_id": "0123456789abcdef0123456789abcdef"])
        }
        logger.info("outside")
        let records = logRecords(try readAll(sink.bytes))
        #expect(records.count == 3)
        #expect(records[0].traceID == spanContext.traceID && records[0].spanID == spanContext.spanID)
        #expect(!records[0].attributes.contains { $0.key == "trace_id" || $0.key == "span_id" }, "\(records[0].attributes)")
        #expect(records[1].attributes.contains(OTLPAttribute("trace_id", "0123456789abcdef0123456789abcdef")))
        #expect(!records[1].attributes.contains { $0.key == "span_id" })
        #expect(records[2].traceID == nil && !records[2].attributes.contains { $0.key == "trace_id" })
    }
}
