import Foundation
import OTLPHTTP
import OTLPTelemetry
import OTLPTestSupport
import OTLPWire
import Testing

private typealias Data_ = OTLPHTTPTestData

/// Spool records stored as zstd frames, beside plain and gzip ones.
@Suite("OTLPSpoolExporter zstd records")
struct OTLPSpoolZstdTests {
    static func root() -> String { OTLPSpoolExporterTests.root() }
    static func spool(_ root: String, signal: OTLPSignal) -> OTLPSpoolConfiguration { OTLPSpoolExporterTests.spool(root, signal: signal) }
    static func records(in directory: String) throws -> [[UInt8]] { try OTLPSpoolExporterTests.records(in: directory) }

    @Test(
        "zstd records: stored as one zstd frame each, sent decompressed whatever the endpoint's compression; earlier gzip and plain records are read on",
        arguments: [(OTLPHTTPProtocol.httpProtobuf, OTLPCompression.gzip), (.httpProtobuf, .none), (.httpJSON, .gzip)])
    func zstdRecords(protocol wireProtocol: OTLPHTTPProtocol, compression: OTLPCompression) throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let down = "http://127.0.0.1:\(try OTLPFreePort.unused())"
        let spans = Data_.spans(300)
        for (run, kind) in [(0, "plain"), (1, "gzip"), (2, "zstd")] {
            var spool = Self.spool(root, signal: .traces)
            spool.gzip = kind == "gzip"
            spool.zstd = kind == "zstd"
            let exporter = OTLPSpoolExporter<OTLPScopedSpan>(
                endpoint: Data_.endpoint(down, timeoutSeconds: 0.2), spool: spool, resource: Data_.resource, diagnostics: { _ in })
            #expect(exporter.export(Array(spans[run * 100..<run * 100 + 100])))
            exporter.shutdown()
        }
        let stored = try Self.records(in: "\(root)/traces")
        #expect(stored.map { $0.starts(with: [0x28, 0xB5, 0x2F, 0xFD]) } == [false, false, true])
        #expect(stored[2].count * 3 < stored[0].count, "zstd records are several times smaller: \(stored.map(\.count))")
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let counters = OTLPTelemetryCounters()
        var spool = Self.spool(root, signal: .traces)
        spool.zstd = true
        let drain = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint, protocol: wireProtocol, compression: compression), spool: spool,
            resource: Data_.resource, counters: counters, diagnostics: { _ in })
        drain.shutdown()
        collector.stop()
        let arrivedInOrderOnce = collector.items == (try Data_.canonical(spans))
        #expect(arrivedInOrderOnce)
        #expect(counters.snapshot.spansExported == 300 && drain.pendingItems == 0)
    }
}
