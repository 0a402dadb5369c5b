import Foundation
import Logging
import Testing
import Tracing
import OTLPWire
@testable import OTLPTelemetry
import OTLPTesting

@Suite("OTLPLogHandler and OTLPLogEmitter")
struct OTLPLogHandlerTests {
    @Test("log calls become records with severity, body, metadata and the active trace context")
    func logHandler() throws {
        let sink = OTLPMemorySink()
        let counters = OTLPTelemetryCounters()
        let clock = OTLPManualClock()
        let resource = OTLPResource(attributes: [OTLPAttribute("service.name", "tests")])
        let emitter = OTLPLogEmitter(
            stage: OTLPSimpleStage(
                exporter: OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, resource: resource, counters: counters), counters: counters),
            scope: OTLPInstrumentationScope(name: "logs"), clock: clock)
        var logger = Logger(label: "checkout") { label in OTLPLogHandler(label: label, emitter: emitter, logLevel: .debug, clock: clock) }
        logger[metadataKey: "session"] = "abc"
        logger.trace("not recorded: below the level")

        let spanContext = OTLPSpanContext(traceID: OTLPTraceID(high: 1, low: 2), spanID: OTLPSpanID(3))
        var context = InstrumentationContext.topLevel
        context.otlpSpanContext = spanContext
        InstrumentationContext.withValue(context) {
            logger.warning("cart is empty", metadata: ["items": "0", "tags": ["a", "b"], "user": ["id": "7"]])
        }
        logger.info("no span")

        let records = logRecords(try readAll(sink.bytes))
        #expect(records.count == 2)
        let warning = records[0]
        #expect(warning.severity == .warn && warning.severityText == "WARN")
        #expect(warning.body == .string("cart is empty"))
        #expect(warning.timeUnixNano == clock.nowUnixNano())
        #expect(warning.traceID == spanContext.traceID && warning.spanID == spanContext.spanID)
        #expect(warning.attributes.contains(OTLPAttribute("session", "abc")))
        #expect(warning.attributes.contains(OTLPAttribute("tags", ["a", "b"])))
        #expect(warning.attributes.contains(OTLPAttribute("user", .keyValueList([OTLPAttribute("id", "7")]))))
        #expect(warning.attributes.contains(OTLPAttribute("log.logger", "checkout")))
        #expect(records[1].traceID == nil)
        #expect(counters.snapshot.logRecordsExported == 2)
    }

    struct PaymentDeclined: Error, CustomStringConvertible {
        var description: String { "card declined (code 51)" }
    }

    @Test("an error given with the call becomes exception.type and exception.message, over metadata of those names")
    func errorBecomesExceptionAttributes() throws {
        let sink = OTLPMemorySink()
        let counters = OTLPTelemetryCounters()
        let emitter = OTLPLogEmitter(
            stage: OTLPSimpleStage(
                exporter: OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, resource: OTLPResource(), counters: counters),
                counters: counters),
            scope: OTLPInstrumentationScope(name: "logs"), clock: OTLPManualClock())
        let logger = Logger(label: "payments") { label in OTLPLogHandler(label: label, emitter: emitter) }
        logger.error("payment failed", error: PaymentDeclined(), metadata: ["exception.message": "from metadata", "order": "42"])
        logger.warning("retrying", error: OTLPWriteError.system("cannot write out.bin", errno: ENOSPC))
        logger.info("no error")

        let records = logRecords(try readAll(sink.bytes))
        try #require(records.count == 3)
        #expect(records[0].body == .string("payment failed"))
        #expect(records[0].attributes.contains(OTLPAttribute("exception.type", "OTLPTelemetryTests.OTLPLogHandlerTests.PaymentDeclined")))
        #expect(records[0].attributes.contains(OTLPAttribute("exception.message", "card declined (code 51)")))
        #expect(records[0].attributes.filter { $0.key == "exception.message" }.count == 1)
        #expect(records[0].attributes.contains(OTLPAttribute("order", "42")))
        #expect(records[1].attributes.contains(OTLPAttribute("exception.type", "OTLPWire.OTLPWriteError")))
        #expect(
            records[1].attributes.contains(
                OTLPAttribute("exception.message", "write failed: cannot write out.bin: No space left on device")))
        #expect(!records[2].attributes.contains { $0.key.hasPrefix("exception.") })
    }

    @Test("the emitter keeps explicit times, bodies of any type and event names")
    func emitter() throws {
        let sink = OTLPMemorySink()
        let counters = OTLPTelemetryCounters()
        let emitter = OTLPLogEmitter(
            stage: OTLPSimpleStage(
                exporter: OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, resource: OTLPResource(), counters: counters),
                counters: counters),
            scope: OTLPInstrumentationScope(name: "events"), clock: OTLPManualClock(42))
        emitter.emit(OTLPLogRecord(timeUnixNano: 7, body: .keyValueList([OTLPAttribute("n", 1)]), eventName: "session.start"))
        let record = try #require(logRecords(try readAll(sink.bytes)).first)
        #expect(record.timeUnixNano == 7 && record.observedTimeUnixNano == 42)
        #expect(record.eventName == "session.start")
        #expect(record.body == .keyValueList([OTLPAttribute("n", 1)]))
    }
}
