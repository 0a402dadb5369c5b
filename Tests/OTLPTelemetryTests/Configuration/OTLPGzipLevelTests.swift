import Foundation
import Testing
import OTLPWire
@testable import OTLPTelemetry

/// The gzip level: one setting name (`gzipLevel`) for the file outputs, the spool and OTLP/HTTP bodies, in JSON,
/// in code (clamped) and in the environment (`OTEL_EXPORTER_OTLP_GZIP_LEVEL`).
@Suite("gzip level")
struct OTLPGzipLevelTests {
    /// zlib's gzip header says how hard the member was compressed (RFC 1952 XFL, byte 8): 4 for level 1,
    /// 2 for level 9, 0 between.
    static func extraFlags(_ member: [UInt8]) -> UInt8? { member.count > 8 && OTLPGzip.isCompressed(member) ? member[8] : nil }

    @Test("JSON: traces, logs, otlp and otlp.spool gzipLevel are read, round-trip, and default to OTLPGzip.defaultLevel")
    func json() throws {
        let json = #"""
            {"traces": {"path": "t.bin", "gzip": true, "gzipLevel": 1}, "logs": {"path": "l.bin", "gzipLevel": 9},
             "otlp": {"gzipLevel": 3, "spool": {"directory": "/tmp/s", "gzip": true, "gzipLevel": 2}}}
            """#
        let (configuration, warnings) = try OTLPTelemetryConfiguration.load(json: Data(json.utf8))
        #expect(warnings.isEmpty)
        #expect(configuration.traces.gzipLevel == 1 && configuration.logs.gzipLevel == 9)
        #expect(configuration.otlp?.gzipLevel == 3 && configuration.otlp?.spool?.gzipLevel == 2)
        #expect(configuration.otlp?.resolved(for: .traces)?.gzipLevel == 3)
        #expect(configuration.otlp?.resolved(for: .logs)?.spool?.gzipLevel == 2)
        let decoded = try JSONDecoder().decode(OTLPTelemetryConfiguration.self, from: JSONEncoder().encode(configuration))
        #expect(decoded == configuration)
        let plain = try OTLPTelemetryConfiguration.load(json: Data(#"{"otlp": {"spool": {"directory": "/tmp/s"}}}"#.utf8)).configuration
        #expect(plain.traces.gzipLevel == OTLPGzip.defaultLevel && plain.logs.gzipLevel == OTLPGzip.defaultLevel)
        #expect(plain.otlp?.gzipLevel == OTLPGzip.defaultLevel && plain.otlp?.spool?.gzipLevel == OTLPGzip.defaultLevel)
    }

    @Test(
        "JSON: a level outside 1...9 (or not a whole number) is an error naming the key",
        arguments: [
            (#"{"traces": {"gzipLevel": 0}}"#, "traces.gzipLevel"),
            (#"{"logs": {"gzipLevel": 10}}"#, "logs.gzipLevel"),
            (#"{"logs": {"gzipLevel": 1.5}}"#, "logs.gzipLevel"),
            (#"{"otlp": {"gzipLevel": -1}}"#, "otlp.gzipLevel"),
            (#"{"otlp": {"spool": {"directory": "/tmp/s", "gzipLevel": 12}}}"#, "otlp.spool.gzipLevel"),
        ])
    func rejected(json: String, keyPath: String) {
        #expect {
            try OTLPTelemetryConfiguration.load(json: Data(json.utf8))
        } throws: { error in
            (error as? OTLPConfigurationError)?.keyPath == keyPath
        }
    }

    @Test("in code: problems names every out-of-range level, and the pipeline's copy clamps them into 1...9")
    func clamped() {
        let configuration = OTLPTelemetryConfiguration(
            traces: .init(path: "t.bin", gzip: true, gzipLevel: 0), logs: .init(path: "l.bin", gzipLevel: 99),
            otlp: .init(spool: .init(directory: "/tmp/s", gzipLevel: -4), gzipLevel: 10))
        #expect(
            configuration.problems.map(\.keyPath) == ["traces.gzipLevel", "logs.gzipLevel", "otlp.gzipLevel", "otlp.spool.gzipLevel"])
        let clamped = configuration.clamped
        #expect(clamped.traces.gzipLevel == 1 && clamped.logs.gzipLevel == 9)
        #expect(clamped.otlp?.gzipLevel == 9 && clamped.otlp?.spool?.gzipLevel == 1)
        #expect(clamped.problems.isEmpty)
        // Resolving clamps too (a configuration never clamped, used directly by an exporter factory).
        #expect(configuration.otlp?.resolved(for: .traces)?.gzipLevel == 9)
        #expect(configuration.otlp?.resolved(for: .traces)?.spool?.gzipLevel == 1)
    }

    @Test("OTEL_EXPORTER_OTLP_GZIP_LEVEL sets otlp.gzipLevel; out of range or alone (no delivery) it is warned about and ignored")
    func environment() {
        let set = OTLPTelemetryConfiguration().applyingEnvironment([
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_EXPORTER_OTLP_GZIP_LEVEL": "2",
        ])
        #expect(set.warnings.isEmpty)
        #expect(set.configuration.otlp?.gzipLevel == 2)
        let outOfRange = OTLPTelemetryConfiguration(otlp: .init()).applyingEnvironment(["OTEL_EXPORTER_OTLP_GZIP_LEVEL": "0"])
        #expect(
            outOfRange.warnings.map(\.description).contains {
                $0.contains("OTEL_EXPORTER_OTLP_GZIP_LEVEL") && $0.contains("between 1 and 9")
            })
        #expect(outOfRange.configuration.otlp?.gzipLevel == OTLPGzip.defaultLevel)
        let alone = OTLPTelemetryConfiguration().applyingEnvironment(["OTEL_EXPORTER_OTLP_GZIP_LEVEL": "1"])
        #expect(alone.configuration.otlp == nil)
        #expect(alone.warnings.map(\.description).contains { $0.contains("no OTLP delivery is configured") })
    }

    @Test("the file output compresses at its level: level 1 and 9 members say so in their header, both read back whole")
    func fileOutput() throws {
        var spans: [OTLPScopedSpan] = []
        for index in 0..<200 {
            let number = UInt64(index + 1)
            let span = OTLPSpan(
                traceID: OTLPTraceID(high: 7, low: number), spanID: OTLPSpanID(number), name: "GET /cart/\(index % 7)",
                startTimeUnixNano: number, endTimeUnixNano: number + 1, attributes: [OTLPAttribute("http.response.status_code", .int(200))])
            spans.append(OTLPScopedSpan(scope: OTLPInstrumentationScope(name: "gzip-level"), span: span))
        }
        var sizes: [Int: Int] = [:]
        let defaultFlags: UInt8 = OTLPGzip.defaultLevel == 1 ? 4 : 0
        let levels: [(Int, UInt8)] = [(1, 4), (9, 2), (OTLPGzip.defaultLevel, defaultFlags)]
        for (level, flags) in levels {
            let sink = OTLPMemorySink()
            let counters = OTLPTelemetryCounters()
            let exporter = OTLPStreamExporter<OTLPScopedSpan>(
                sink: sink, gzip: true, gzipLevel: level, resource: OTLPResource(), counters: counters)
            #expect(exporter.export(spans))
            #expect(Self.extraFlags(sink.bytes) == flags, "level \(level)")
            let reader = try OTLPRecordReader(source: OTLPMemorySource(sink.bytes))
            var items = 0
            while let record = try reader.next() { items += record.payload.itemCount }
            #expect(items == 200 && counters.snapshot.spansExported == 200)
            sizes[level] = sink.bytes.count
        }
        #expect(sizes[9]! < sizes[1]!, "\(sizes)")
    }
}
