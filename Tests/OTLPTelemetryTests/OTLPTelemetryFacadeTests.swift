import Foundation
import Logging
import Testing
import Tracing
import OTLPWire
@testable import OTLPTelemetry

@Suite("OTLPTelemetry")
struct OTLPTelemetryFacadeTests {
    @Test("configured from one value: spans and logs land in their files, with the detected resource")
    func pipeline() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let traces = directory.appendingPathComponent("traces.u32be.bin").path
        let logs = directory.appendingPathComponent("logs.jsonl.gz").path
        let messages = Messages()
        let telemetry = OTLPTelemetry(
            configuration: .init(
                service: .init(name: "facade", version: "2.0"), traces: .init(path: traces),
                logs: .init(path: logs, framing: .jsonl, gzip: true)),
            diagnostics: messages.add)
        let logger = Logger(label: "facade") { telemetry.logHandler(label: $0) }
        telemetry.tracer.withSpan("outer") { span in
            InstrumentationContext.withValue(span.context) {
                logger.info("inside")
            }
            telemetry.tracer.withSpan("inner", context: span.context) { _ in }
        }
        telemetry.shutdown()
        #expect(messages.all.isEmpty)

        let traceRecords = try readAll(Array(try Data(contentsOf: URL(fileURLWithPath: traces))))
        let exportedSpans = spans(traceRecords)
        #expect(exportedSpans.map(\.name).sorted() == ["inner", "outer"])
        guard case .traces(let data) = traceRecords[0] else { Issue.record("not traces"); return }
        let resource = try #require(data.resourceSpans.first?.resource)
        #expect(resource.attributes.contains(OTLPAttribute("service.name", "facade")))
        #expect(resource.attributes.contains(OTLPAttribute("service.version", "2.0")))
        #expect(resource.attributes.contains { $0.key == "process.pid" })
        #expect(data.resourceSpans.first?.scopeSpans.first?.scope?.name == "facade")

        let reader = try OTLPRecordReader(path: logs)
        #expect(reader.framing == .jsonl && reader.isCompressed)
        let record = try #require(logRecords(try readAll(Array(try Data(contentsOf: URL(fileURLWithPath: logs))))).first)
        #expect(record.body == .string("inside"))
        #expect(record.traceID == exportedSpans.first { $0.name == "outer" }?.traceID)
    }

    @Test("a signal without an output is counted as dropped (disabled), and shutdown reports it")
    func disabled() {
        let messages = Messages()
        let telemetry = OTLPTelemetry(configuration: .init(), diagnostics: messages.add)
        telemetry.tracer.startSpan("nowhere").end()
        telemetry.logEmitter.emit(OTLPLogRecord(timeUnixNano: 1))
        telemetry.shutdown()
        #expect(telemetry.counters.snapshot.spansDropped == [.disabled: 1])
        #expect(telemetry.counters.snapshot.logRecordsDropped == [.disabled: 1])
        #expect(messages.all.count == 1)
        #expect(messages.all.first?.contains("1 disabled") == true)
    }
}
