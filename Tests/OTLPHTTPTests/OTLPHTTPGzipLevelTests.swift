import Foundation
import OTLPHTTP
import OTLPTelemetry
import OTLPTestSupport
import OTLPWire
import Testing

/// `otlp.gzipLevel` and `otlp.spool.gzipLevel` reach zlib: request bodies and spooled records say their level in
/// their gzip header (RFC 1952 XFL, byte 8: 4 for level 1, 2 for level 9).
@Suite("OTLP/HTTP gzip level", .serialized)
struct OTLPHTTPGzipLevelTests {
    typealias Data_ = OTLPHTTPTestData

    static func extraFlags(_ member: [UInt8]) -> UInt8? { member.count > 8 && member.starts(with: [0x1F, 0x8B]) ? member[8] : nil }

    @Test("request bodies are compressed at otlp.gzipLevel", arguments: [(1, UInt8(4)), (9, UInt8(2))])
    func requestBodies(level: Int, flags: UInt8) throws {
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let endpoint = OTLPExporterConfiguration(endpoint: collector.endpoint, gzipLevel: level).resolved(for: .traces)!
        let counters = OTLPTelemetryCounters()
        let exporter = OTLPHTTPExporter<OTLPScopedSpan>(endpoint: endpoint, resource: Data_.resource, counters: counters)
        let spans = Data_.spans(50)
        #expect(exporter.export(spans))
        exporter.shutdown()
        collector.stop()
        let bodies = collector.requests.map(\.body)
        #expect(bodies.count == 1 && bodies.allSatisfy { Self.extraFlags($0) == flags })
        #expect(collector.items == (try Data_.canonical(spans)))
    }

    @Test("gzip spool records are stored at otlp.spool.gzipLevel", arguments: [(1, UInt8(4)), (9, UInt8(2))])
    func spoolRecords(level: Int, flags: UInt8) throws {
        let root = OTLPSpoolExporterTests.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let down = "http://127.0.0.1:\(try OTLPFreePort.unused())"
        var spool = OTLPSpoolExporterTests.spool(root, signal: .traces)
        spool.gzip = true
        spool.gzipLevel = level
        let exporter = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(down, timeoutSeconds: 0.2), spool: spool, resource: Data_.resource, diagnostics: { _ in })
        #expect(exporter.export(Data_.spans(100)))
        exporter.shutdown()
        let stored = try OTLPSpoolExporterTests.records(in: "\(root)/traces")
        #expect(stored.count == 1 && stored.allSatisfy { Self.extraFlags($0) == flags })
    }
}
