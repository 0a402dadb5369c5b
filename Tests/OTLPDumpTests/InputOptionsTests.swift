import ArgumentParser
import Foundation
import OTLPWire
import Testing
@testable import otlp_dump

/// otlp-dump's limit options read their defaults from `OTLPReaderOptions.default`; the record size limit is
/// `--max-record-bytes`, and its former name `--max-frame-bytes` still works.
@Suite("otlp-dump input options")
struct InputOptionsTests {
    static let framed = OTLPDumpRunner.vectors.appendingPathComponent("framed/traces-mixed.u32be.bin").path

    @Test("without options, the reader options are the library's defaults")
    func defaults() throws {
        let options = try InputOptions.parse([])
        #expect(options.readerOptions == OTLPReaderOptions.default)
    }

    @Test("either name sets the record size limit")
    func bothNames() throws {
        #expect(try InputOptions.parse(["--max-record-bytes", "100"]).readerOptions.decoding.maxRecordBytes == 100)
        #expect(try InputOptions.parse(["--max-frame-bytes", "200"]).readerOptions.decoding.maxRecordBytes == 200)
    }

    @Test("--max-frame-bytes still limits records, and an error names it; it is not in the help")
    func formerFlag() throws {
        let limited = try OTLPDumpRunner.run(["validate", "--max-frame-bytes", "100", Self.framed])
        #expect(limited.status == 1 && limited.stderr.contains("record_too_large"), "\(limited.stderr)")
        let outside = try OTLPDumpRunner.run(["validate", "--max-frame-bytes", "0", Self.framed])
        #expect(outside.status == 64 && outside.stderr.contains("--max-frame-bytes must be in 1...2147483647"), "\(outside.stderr)")
        let help = try OTLPDumpRunner.run(["validate", "--help"])
        #expect(help.stdout.contains("--max-record-bytes") && !help.stdout.contains("--max-frame-bytes"))
        #expect(help.stdout.contains("(default: \(OTLPDecodingOptions.default.maxRecordBytes))"))
    }

    @Test("both names at once are a usage error")
    func bothAtOnce() throws {
        let result = try OTLPDumpRunner.run(["validate", "--max-record-bytes", "100", "--max-frame-bytes", "100", Self.framed])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--max-frame-bytes is the former name of --max-record-bytes"), "\(result.stderr)")
    }
}
