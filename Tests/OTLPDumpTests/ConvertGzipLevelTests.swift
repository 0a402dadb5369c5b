import Foundation
import OTLPTestSupport
import Testing

/// `otlp-dump convert --gzip --gzip-level N`: the output's gzip header says the level (RFC 1952 XFL, byte 8: 4 for
/// level 1, 2 for level 9), it reads back to the same records, and a level outside 1...9 or without --gzip is refused.
@Suite("otlp-dump convert --gzip-level")
struct ConvertGzipLevelTests {
    @Test("--gzip-level 1 and 9 write members of that level which read back to the input; 0, 10 and no --gzip are refused")
    func gzipLevel() throws {
        let directory = try OTLPTemporaryDirectory.make("otlp-dump-gzip-level")
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = OTLPDumpRunner.vectors.appendingPathComponent("framed/traces-mixed.u32be.bin").path
        let reference = try Data(contentsOf: URL(fileURLWithPath: source))
        for (level, flags) in [("1", UInt8(4)), ("9", UInt8(2))] {
            let gzipped = directory.appendingPathComponent("traces-\(level).u32be.bin.gz").path
            let converted = try OTLPDumpRunner.run(["convert", source, gzipped, "--to", "u32be", "--gzip", "--gzip-level", level])
            #expect(converted.status == 0, "\(converted.stderr)")
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: gzipped)))
            #expect(bytes.starts(with: [0x1F, 0x8B]) && bytes[8] == flags)
            let back = directory.appendingPathComponent("back-\(level).u32be.bin").path
            #expect(try OTLPDumpRunner.run(["convert", gzipped, back, "--to", "u32be"]).status == 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: back)) == reference)
        }
        let output = directory.appendingPathComponent("x").path
        for arguments in [["--gzip", "--gzip-level", "0"], ["--gzip", "--gzip-level", "10"], ["--gzip-level", "1"]] {
            let refused = try OTLPDumpRunner.run(["convert", source, output, "--to", "u32be"] + arguments)
            #expect(refused.status == 64, "\(arguments): \(refused.stderr)")
            #expect(refused.stderr.contains("--gzip-level"), "\(refused.stderr)")
        }
    }

    @Test("an empty input converted with --gzip is one empty member, which gzip -t accepts (regression: 0 bytes, not gzip)")
    func emptyInputIsOneEmptyMember() throws {
        let directory = try OTLPTemporaryDirectory.make("otlp-dump-gzip-empty")
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("empty.u32be.bin").path
        #expect(FileManager.default.createFile(atPath: source, contents: Data()))
        let gzipped = directory.appendingPathComponent("empty.u32be.bin.gz").path
        let converted = try OTLPDumpRunner.run(["convert", source, gzipped, "--to", "u32be", "--gzip"])
        #expect(converted.status == 0, "\(converted.stderr)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: gzipped)))
        #expect((18...32).contains(bytes.count) && bytes.starts(with: [0x1F, 0x8B]), "\(bytes)")  // header, an empty block, trailer
        let test = Process()
        test.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        test.arguments = ["gzip", "-t", gzipped]
        try test.run()
        test.waitUntilExit()
        #expect(test.terminationStatus == 0)
        let validated = try OTLPDumpRunner.run(["validate", gzipped])
        #expect(validated.status == 0 && validated.stdout.contains("0 records"), "\(validated.stdout)\(validated.stderr)")
    }
}
