import Foundation
import OTLPTelemetry
import OTLPWire
import Testing
import OTLPTestSupport

/// `otlp-dump stats` counts spans and log records per `session.id`.
@Suite("otlp-dump stats per session")
struct StatsSessionTests {
    static func spans(_ sessions: [String?]) -> [OTLPScopedSpan] {
        sessions.enumerated().map { index, session in
            var span = OTLPSpan(
                traceID: OTLPTraceID(high: 1, low: UInt64(index + 1)), spanID: OTLPSpanID(UInt64(index + 1)), name: "s\(index)",
                startTimeUnixNano: 1, endTimeUnixNano: 2)
            if let session { span.attributes = [OTLPAttribute("session.id", .string(session))] }
            return OTLPScopedSpan(scope: OTLPInstrumentationScope(name: "t"), span: span)
        }
    }

    @Test("a count per session.id, most items first, and the items without one beside them; no section when no item has one")
    func perSession() throws {
        let directory = try OTLPTemporaryDirectory.make("dump-sessions")
        defer { try? FileManager.default.removeItem(at: directory) }
        let traces = directory.appendingPathComponent("traces.u32be.bin").path
        let resource = OTLPResource(attributes: [OTLPAttribute("service.name", "app")])
        let spanExporter = OTLPStreamExporter<OTLPScopedSpan>(path: traces, resource: resource)
        spanExporter.export(Self.spans(["aaaa", "bbbb", "aaaa", nil]))
        spanExporter.shutdown()
        let logs = directory.appendingPathComponent("logs.u32be.bin").path
        let logExporter = OTLPStreamExporter<OTLPScopedLogRecord>(path: logs, resource: resource)
        logExporter.export([
            OTLPScopedLogRecord(
                scope: OTLPInstrumentationScope(name: "t"),
                record: OTLPLogRecord(timeUnixNano: 1, attributes: [OTLPAttribute("session.id", "bbbb")]))
        ])
        logExporter.shutdown()
        let result = try OTLPDumpRunner.run(["stats", traces, logs])
        #expect(result.status == 0, "\(result.stderr)")
        let section = result.stdout.components(separatedBy: "by session.id:\n").last ?? ""
        let lines = section.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines == ["2  aaaa", "2  bbbb", "1  (no session.id)"], "\(result.stdout)")
        // The reference vectors' log records: 79 sessions of one record each, 822 records without one.
        let many = try OTLPDumpRunner.run(["stats", OTLPDumpRunner.vectors.appendingPathComponent("framed/logs-mixed.varint.bin").path])
        let manyLines = (many.stdout.components(separatedBy: "by session.id:\n").last ?? "").split(separator: "\n")
        #expect(manyLines.count == 21 && manyLines.first?.hasSuffix("822  (no session.id)") == true, "\(manyLines.prefix(3))")
        #expect(manyLines.last?.hasSuffix("60  (60 more)") == true, "\(manyLines.last ?? "")")
        let plain = directory.appendingPathComponent("plain.u32be.bin").path
        let plainExporter = OTLPStreamExporter<OTLPScopedSpan>(path: plain, resource: resource)
        plainExporter.export(Self.spans([nil, nil]))
        plainExporter.shutdown()
        let without = try OTLPDumpRunner.run(["stats", plain])
        #expect(without.status == 0 && !without.stdout.contains("by session.id"), "\(without.stdout)")
    }
}
