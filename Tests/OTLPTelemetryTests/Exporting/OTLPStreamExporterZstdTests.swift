import Foundation
import Testing
import OTLPWire
@testable import OTLPTelemetry

/// The stream exporter's zstd records: the Collector's layout, readable under the readers' default limits.
@Suite("OTLPStreamExporter zstd records")
struct OTLPStreamExporterZstdTests {
    static let scope = OTLPInstrumentationScope(name: "zstd")

    @Test("zstd: each record one zstd frame; batches of very compressible data (stored frames) still read back under the ratio limit")
    func compressibleZstd() throws {
        let sink = OTLPMemorySink()
        let counters = OTLPTelemetryCounters()
        let exporter = OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, zstd: true, resource: OTLPResource(), counters: counters)
        // 40 batches of 10 records, each with a 64 KiB body of one letter: 26 MB that zstd squeezes by far more than 1000:1.
        let body = OTLPAttributeValue.string(String(repeating: "a", count: 65_536))
        for batch in 0..<40 {
            let items = (0..<10).map {
                OTLPScopedLogRecord(scope: Self.scope, record: OTLPLogRecord(timeUnixNano: UInt64(batch * 10 + $0 + 1), body: body))
            }
            #expect(exporter.export(items))
        }
        #expect(Array(sink.bytes[4..<8]) == [0x28, 0xB5, 0x2F, 0xFD])
        // A normal batch after them is compressed.
        let normal = (0..<100).map {
            OTLPScopedLogRecord(
                scope: Self.scope, record: OTLPLogRecord(timeUnixNano: UInt64($0 + 1), body: .string("request \($0) served")))
        }
        let plain = OTLPMemorySink()
        OTLPStreamExporter<OTLPScopedLogRecord>(sink: plain, resource: OTLPResource()).export(normal)
        let before = sink.bytes.count
        #expect(exporter.export(normal))
        #expect(sink.bytes.count - before < plain.bytes.count / 2)
        let reader = try OTLPRecordReader(source: OTLPMemorySource(sink.bytes))
        var records = 0
        while let record = try reader.next() { records += record.payload.itemCount }
        #expect(reader.compression == .zstdRecords)
        #expect(records == 500 && counters.snapshot.logRecordsExported == 500)
    }
}
