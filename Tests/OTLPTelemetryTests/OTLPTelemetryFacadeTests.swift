import Foundation
import Logging
import Testing
import Tracing
import OTLPWire
@testable import OTLPTelemetry
import OTLPTestSupport

@Suite("OTLPTelemetry")
struct OTLPTelemetryFacadeTests {
    @Test("configured from one value: spans and logs land in their files, with the detected resource")
    func pipeline() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
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
        let resource = try #require(data.resourceGroups.first?.resource)
        #expect(resource.attributes.contains(OTLPAttribute("service.name", "facade")))
        #expect(resource.attributes.contains(OTLPAttribute("service.version", "2.0")))
        #expect(resource.attributes.contains { $0.key == "process.pid" })
        #expect(data.resourceGroups.first?.scopeGroups.first?.scope?.name == "facade")

        let reader = try OTLPRecordReader(path: logs)
        #expect(reader.framing == .jsonl && reader.isCompressed)
        let record = try #require(logRecords(try readAll(Array(try Data(contentsOf: URL(fileURLWithPath: logs))))).first)
        #expect(record.body == .string("inside"))
        #expect(record.traceID == exportedSpans.first { $0.name == "outer" }?.traceID)
    }

    @Test(
        "no output at all is said once, when the telemetry is made; its items are counted disabled, and shutdown does not report them as dropped data (regression: reported only at exit, as drops)"
    )
    func disabled() {
        let messages = Messages()
        let telemetry = OTLPTelemetry(configuration: .init(), diagnostics: messages.add)
        #expect(messages.all.count == 1)
        #expect(messages.all.first?.contains("nothing is exported: no output for spans or log records") == true, "\(messages.all)")
        telemetry.tracer.startSpan("nowhere").end()
        telemetry.logEmitter.emit(OTLPLogRecord(timeUnixNano: 1))
        telemetry.shutdown()
        #expect(telemetry.counters.snapshot.spansDropped == [.disabled: 1])
        #expect(telemetry.counters.snapshot.logRecordsDropped == [.disabled: 1])
        #expect(messages.all.count == 1, "\(messages.all)")
    }

    @Test("a signal switched off while the other is written: nothing said at start, nothing reported as dropped at shutdown")
    func oneSignalOff() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let messages = Messages()
        let telemetry = OTLPTelemetry(
            configuration: .init(traces: .init(path: directory.appendingPathComponent("traces.u32be.bin").path)), diagnostics: messages.add)
        telemetry.tracer.startSpan("kept").end()
        telemetry.logEmitter.emit(OTLPLogRecord(timeUnixNano: 1))
        telemetry.shutdown()
        #expect(telemetry.counters.snapshot.spansExported == 1)
        #expect(messages.all.isEmpty, "\(messages.all)")
    }

    @Test(
        "a file output in folders that do not exist yet: the folders are made (0755) and everything is written (regression: the README's quick start dropped every batch write_failed)"
    )
    func missingFolders() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let traces = directory.appendingPathComponent("telemetry/deeper/traces.u32be.bin").path
        let logs = directory.appendingPathComponent("telemetry/logs.u32be.bin").path
        let messages = Messages()
        let telemetry = OTLPTelemetry(configuration: .init(traces: .init(path: traces), logs: .init(path: logs)), diagnostics: messages.add)
        telemetry.tracer.startSpan("written").end()
        telemetry.logEmitter.emit(OTLPLogRecord(timeUnixNano: 1))
        telemetry.shutdown()
        #expect(messages.all.isEmpty, "\(messages.all)")
        #expect(telemetry.counters.snapshot.spansExported == 1 && telemetry.counters.snapshot.logRecordsExported == 1)
        let mode =
            try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("telemetry/deeper").path)[.posixPermissions]
            as? Int
        #expect(mode.map { $0 & 0o755 == 0o755 } == true)
        #expect(spans(try readAll(Array(try Data(contentsOf: URL(fileURLWithPath: traces))))).map(\.name) == ["written"])
    }

    @Test("a telemetry released without shutdown() says so, with what it had not exported yet (regression: lost with no word)")
    func releasedWithoutShutdown() throws {
        let messages = Messages()
        do {
            let telemetry = OTLPTelemetry(
                configuration: .init(logs: .init(path: "/dev/null"), batch: .init(scheduleDelaySeconds: 3600)), diagnostics: messages.add)
            telemetry.logEmitter.emit(OTLPLogRecord(timeUnixNano: 1))
        }
        let said = try #require(messages.all.first { $0.contains("released without shutdown()") }, "\(messages.all)")
        #expect(said.contains("1 log record not yet exported"), "\(said)")
        let shutDown = Messages()
        do {
            let telemetry = OTLPTelemetry(configuration: .init(logs: .init(path: "/dev/null")), diagnostics: shutDown.add)
            telemetry.shutdown()
        }
        #expect(!shutDown.all.contains { $0.contains("released without shutdown()") })
    }

    @Test("spans dropped for a full queue: the shutdown report names the setting, its variable and a size that holds the run's peak")
    func queueFullAdvice() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let messages = Messages()
        let telemetry = OTLPTelemetry(
            configuration: .init(
                traces: .init(path: directory.appendingPathComponent("traces.u32be.bin").path),
                batch: .init(maxQueueSize: 1, maxExportBatchSize: 1)),
            diagnostics: messages.add)
        for index in 0..<5_000 { telemetry.tracer.startSpan("span \(index)").end() }
        telemetry.shutdown()
        let dropped = telemetry.counters.snapshot.spansDropped[.queueFull, default: 0]
        try #require(dropped > 0, "a queue of 1 behind a file output holds back 5,000 spans made in a loop")
        let report = try #require(messages.all.first { $0.contains("dropped data") })
        #expect(report.contains("raise batch.maxQueueSize (OTEL_BSP_MAX_QUEUE_SIZE) from 1 to at least "), "\(report)")
        let suggested = report.split(separator: " ").drop { $0 != "least" }.dropFirst().first.flatMap { Int($0) }
        #expect((suggested ?? 0) > 1, "\(report)")
    }
}
