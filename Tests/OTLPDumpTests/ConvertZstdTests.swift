import Foundation
import OTLPTestSupport
import Testing

/// `otlp-dump convert --zstd` writes the Collector's zstd records, and every command reads them back, as it reads
/// whole zstd files made by the `zstd` tool.
@Suite("otlp-dump and zstd")
struct ConvertZstdTests {
    @Test("convert --to u32be --zstd and --to jsonl --zstd write zstd records that read back to the same requests")
    func convertRoundTrip() throws {
        let directory = try OTLPTemporaryDirectory.make("otlp-dump-zstd")
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = OTLPDumpRunner.vectors.appendingPathComponent("framed/traces-mixed.u32be.bin").path
        let reference = try Data(contentsOf: URL(fileURLWithPath: source))
        for to in ["u32be", "jsonl"] {
            let zstd = directory.appendingPathComponent("traces.\(to).zstd-records").path
            let converted = try OTLPDumpRunner.run(["convert", source, zstd, "--to", to, "--zstd"])
            #expect(converted.status == 0, "\(converted.stderr)")
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: zstd)))
            #expect(Array(bytes[4..<8]) == [0x28, 0xB5, 0x2F, 0xFD])
            let validate = try OTLPDumpRunner.run(["validate", zstd])
            #expect(validate.status == 0)
            #expect(validate.stdout.contains("zstd-records"))
            let back = directory.appendingPathComponent("back-\(to).u32be.bin").path
            #expect(try OTLPDumpRunner.run(["convert", zstd, back, "--to", "u32be"]).status == 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: back)) == reference)
        }
        let refused = try OTLPDumpRunner.run(["convert", source, directory.appendingPathComponent("x").path, "--to", "varint", "--zstd"])
        #expect(refused.status == 64)
    }

    @Test("a whole-file zstd made by the zstd tool prints, validates and converts; a cut one reports zstd_truncated after its records")
    func nativeFile() throws {
        let directory = try OTLPTemporaryDirectory.make("otlp-dump-zstd")
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = OTLPDumpRunner.vectors.appendingPathComponent("framed/traces-mixed.jsonl").path
        let zst = directory.appendingPathComponent("traces.jsonl.zst").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["zstd", "-q", "--check", source, "-o", zst]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let validate = try OTLPDumpRunner.run(["validate", zst])
        #expect(validate.status == 0)
        #expect(validate.stdout.contains("50 records"))
        #expect(validate.stdout.contains("jsonl, zstd"))
        let whole = try Data(contentsOf: URL(fileURLWithPath: zst))
        let cut = directory.appendingPathComponent("cut.jsonl.zst").path
        try whole.prefix(whole.count * 2 / 3).write(to: URL(fileURLWithPath: cut))
        let damaged = try OTLPDumpRunner.run(["validate", cut])
        #expect(damaged.status == 1)
        #expect(damaged.stderr.contains("zstd_truncated"))
        let forced = try OTLPDumpRunner.run(["validate", "--input-compression", "gzip", zst])
        #expect(forced.status == 1)
        #expect(forced.stderr.contains("gzip_bad_header"))
    }

    @Test(
        "send reads zstd records holding JSON or protobuf and sends every item, protobuf or JSON on the wire",
        arguments: ["http/protobuf", "http/json"])
    func sendZstdRecords(wireProtocol: String) throws {
        let directory = try OTLPTemporaryDirectory.make("otlp-dump-zstd")
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = OTLPDumpRunner.vectors.appendingPathComponent("framed/logs-mixed.jsonl").path
        let expected = try OTLPTestCollector.canonicalItems(ofFile: source, framing: "jsonl", signal: "logs")
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        for to in ["jsonl", "u32be"] {
            let zstd = directory.appendingPathComponent("logs-\(to).zst-records").path
            #expect(try OTLPDumpRunner.run(["convert", source, zstd, "--to", to, "--zstd"]).status == 0)
            let sent = try OTLPDumpRunner.run(["send", zstd, "--endpoint", collector.endpoint, "--protocol", wireProtocol])
            #expect(sent.status == 0, "\(sent.stderr)")
        }
        collector.stop()
        #expect(collector.items.sorted() == (expected + expected).sorted())
    }
}
