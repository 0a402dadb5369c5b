import Foundation
import Testing

/// `convert` reads with the same limit options as the other commands, and writes no JSON line readers with
/// those limits would refuse.
@Suite("otlp-dump convert limits")
struct ConvertLimitTests {
    static let traces = OTLPDumpRunner.vectors.appendingPathComponent("framed/traces-mixed.u32be.bin").path

    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("otlp-dump-convert-\(UUID().uuidString)-\(name)").path
    }

    @Test("regression: convert takes the limit options (it refused them as unknown)")
    func limitOptionsApply() throws {
        let output = Self.temporaryPath("out.bin")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let limited = try OTLPDumpRunner.run(["convert", "--max-record-bytes", "20", Self.traces, output, "--to", "varint"])
        #expect(limited.status == 1 && limited.stderr.contains("record_too_large"), "\(limited.stderr)")
        let generous = try OTLPDumpRunner.run([
            "convert", "--max-record-bytes", "20000000", "--max-decoded-bytes", "200000000", Self.traces, output, "--to", "varint",
        ])
        #expect(generous.status == 0, "\(generous.stderr)")
        let usage = try OTLPDumpRunner.run(["convert", "--max-record-bytes", "0", Self.traces, output, "--to", "varint"])
        #expect(usage.status == 64)
    }

    @Test("regression: a JSON line longer than --max-line-bytes is not written; the lines before it are, exit 1")
    func overlongLineIsRefused() throws {
        let lines = try OTLPDumpRunner.run(["print", "--format", "json", Self.traces]).stdout.split(separator: "\n")
        // The first record whose line is longer than every line before it: the limit lets those through.
        guard
            let longer = lines.indices.dropFirst().first(where: { index in
                lines[index].utf8.count > lines[..<index].map(\.utf8.count).max()!
            })
        else {
            Issue.record("no record longer than those before it")
            return
        }
        let limit = lines[..<longer].map(\.utf8.count).max()!
        let output = Self.temporaryPath("out.jsonl")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let result = try OTLPDumpRunner.run(["convert", "--max-line-bytes", String(limit), Self.traces, output, "--to", "jsonl"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("record \(longer): its JSON line would be"), "\(result.stderr)")
        let written = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        #expect(written == Array(lines[..<longer]))
        let readBack = try OTLPDumpRunner.run(["validate", "--max-line-bytes", String(limit), output])
        #expect(readBack.status == 0, "\(readBack.stderr)")
    }
}
