import Foundation
import Testing
import OTLPWire
@testable import OTLPTelemetry
import OTLPTesting

@Suite("OTLPRotatingFileSink")
struct OTLPRotatingFileSinkTests {
    static let resource = OTLPResource(attributes: [OTLPAttribute("service.name", "rotation")])
    static let scope = OTLPInstrumentationScope(name: "rotation")

    static func batch(_ start: Int, _ count: Int) -> [OTLPScopedLogRecord] {
        (start..<(start + count)).map { OTLPScopedLogRecord(scope: scope, record: OTLPLogRecord(timeUnixNano: UInt64($0 + 1), body: .string("record \($0)"))) }
    }

    @Test("crossing the size limit many times keeps at most maxFiles valid files; only retention loses items, counted", arguments: [false, true])
    func sizeRotation(gzip: Bool) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let counters = OTLPTelemetryCounters()
        let path = directory.appendingPathComponent("logs.u32be.bin").path
        let sink = OTLPRotatingFileSink(path: path, rotation: .init(maxFileBytes: 4_000, maxFiles: 4), kind: .logRecord, counters: counters)
        let exporter = OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, gzip: gzip, resource: Self.resource, counters: counters)
        var sent = 0
        for _ in 0..<200 {
            #expect(exporter.export(Self.batch(sent, 7)))
            sent += 7
        }
        let files = sink.files
        #expect(files.count == 4)
        var inFiles: [UInt64] = []
        for file in files.reversed() {  // oldest first
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
            #expect(bytes.count <= 4_000 || gzip)
            inFiles += logRecords(try readAll(bytes)).map(\.timeUnixNano)  // throws if any file is not a valid stream
        }
        let snapshot = counters.snapshot
        #expect(snapshot.logRecordsExported == sent)
        #expect(inFiles.count + snapshot.logRecordsDropped[.retention, default: 0] == sent)
        #expect(snapshot.logRecordsDropped[.retention, default: 0] > 0)
        // What is kept is the newest records, in order, none repeated: whole batches, never split.
        #expect(inFiles == Array(UInt64(sent - inFiles.count + 1)...UInt64(sent)))
    }

    @Test("age rotation with an injected clock")
    func ageRotation() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = OTLPManualClock()
        let counters = OTLPTelemetryCounters()
        let sink = OTLPRotatingFileSink(
            path: directory.appendingPathComponent("t.bin").path, rotation: .init(maxAgeSeconds: 60, maxFiles: 10),
            kind: .logRecord, counters: counters, clock: clock)
        let exporter = OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, resource: Self.resource, counters: counters)
        exporter.export(Self.batch(0, 3))
        clock.advance(30_000_000_000)
        exporter.export(Self.batch(3, 3))
        #expect(sink.files.count == 1)
        clock.advance(31_000_000_000)
        exporter.export(Self.batch(6, 3))
        #expect(sink.files.count == 2)
        #expect(counters.snapshot.totalLogRecordsDropped == 0)
    }
}
