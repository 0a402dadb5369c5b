import Foundation
import Logging
import Testing
import Tracing
import OTLPWire
import OTLPTelemetry

/// A tracer and a log emitter put together by hand over an exporter, with the public API only: batched (the
/// default) or each item at once; `shutdown()` exports what is queued and stops.
@Suite("Hand assembly over an exporter")
struct HandAssemblyTests {
    let resource = OTLPResource(attributes: [OTLPAttribute("service.name", "tests")])
    let scope = OTLPInstrumentationScope(name: "tests")

    @Test("a batched tracer exports at forceFlush and shutdown; later spans are dropped and counted")
    func batchedTracer() throws {
        let sink = OTLPMemorySink()
        let counters = OTLPTelemetryCounters()
        let tracer = OTLPTracer(
            exporter: OTLPStreamExporter<OTLPScopedSpan>(sink: sink, resource: resource, counters: counters),
            batch: OTLPBatchConfiguration(scheduleDelaySeconds: 3_600), counters: counters, scope: scope)
        for index in 0..<3 { tracer.startSpan("span \(index)").end() }
        tracer.forceFlush()
        #expect(spans(try readAll(sink.bytes)).map(\.name) == ["span 0", "span 1", "span 2"])
        tracer.startSpan("last").end()
        tracer.shutdown()
        tracer.startSpan("too late").end()
        #expect(spans(try readAll(sink.bytes)).map(\.name) == ["span 0", "span 1", "span 2", "last"])
        let snapshot = counters.snapshot
        #expect(snapshot.spansReceived == 5 && snapshot.spansExported == 4 && snapshot.spansDropped == [.shutDown: 1])
    }

    @Test("without batching, each span and record is exported as it ends, on the caller's thread")
    func unbatched() throws {
        let spanSink = OTLPMemorySink(), logSink = OTLPMemorySink()
        let counters = OTLPTelemetryCounters()
        let tracer = OTLPTracer(
            exporter: OTLPStreamExporter<OTLPScopedSpan>(sink: spanSink, resource: resource, counters: counters),
            batch: nil, counters: counters, scope: scope)
        let emitter = OTLPLogEmitter(
            exporter: OTLPStreamExporter<OTLPScopedLogRecord>(sink: logSink, resource: resource, counters: counters),
            batch: nil, counters: counters, scope: scope)
        tracer.withSpan("work") { _ in emitter.emit(OTLPLogRecord(timeUnixNano: 1, body: "inside")) }
        #expect(spans(try readAll(spanSink.bytes)).map(\.name) == ["work"])
        let records = logRecords(try readAll(logSink.bytes))
        #expect(records.map(\.body) == [.string("inside")])
        #expect(records.first?.traceID != nil)
        tracer.shutdown()
        emitter.shutdown()
        emitter.emit(OTLPLogRecord(timeUnixNano: 2, body: "too late"))
        let snapshot = counters.snapshot
        #expect(snapshot.spansExported == 1 && snapshot.logRecordsExported == 1 && snapshot.logRecordsDropped == [.shutDown: 1])
    }

    @Test("a batched emitter exports at shutdown")
    func batchedEmitter() throws {
        let sink = OTLPMemorySink()
        let counters = OTLPTelemetryCounters()
        let emitter = OTLPLogEmitter(
            exporter: OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, resource: resource, counters: counters),
            counters: counters, scope: scope)
        emitter.emit(OTLPLogRecord(timeUnixNano: 1, body: "one"))
        emitter.shutdown()
        #expect(logRecords(try readAll(sink.bytes)).map(\.body) == [.string("one")])
        #expect(counters.snapshot.logRecordsExported == 1)
    }
}
