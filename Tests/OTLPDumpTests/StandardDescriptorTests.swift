import Foundation
import OTLPTestSupport
import Testing

/// otlp-dump started with a standard descriptor closed, or with its standard error a pipe nobody reads.
@Suite("otlp-dump with closed standard descriptors")
struct StandardDescriptorTests {
    static let damaged = OTLPDumpRunner.vectors.appendingPathComponent("bad/traces-truncated-in-body.u32be.bin").path

    /// Runs otlp-dump through `sh -c 'exec otlp-dump ARGS REDIRECTIONS'`.
    static func run(_ arguments: [String], redirections: String, stdin: Data? = nil) throws -> OTLPProcess.Result {
        try OTLPProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", #"exec "$0" "$@" "# + redirections, OTLPDumpRunner.binary.path] + arguments,
            stdin: stdin)
    }

    @Test("regression: with standard error closed, the output file does not become descriptor 2 and receives no diagnostics")
    func closedStandardErrorKeepsOutputClean() throws {
        let directory = try OTLPTemporaryDirectory.make("otlp-dump-fd")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.jsonl").path
        let result = try Self.run(
            ["convert", "-", output, "--to", "jsonl"], redirections: "2>&-", stdin: try Data(contentsOf: URL(fileURLWithPath: Self.damaged))
        )
        #expect(result.status == 1)
        let written = try String(contentsOfFile: output, encoding: .utf8)
        #expect(!written.contains("otlp-dump:"), "diagnostics in the output: \(written.suffix(200))")
        let lines = written.split(separator: "\n")
        #expect(lines.count == 3 && lines.allSatisfy { $0.hasPrefix("{\"resourceSpans\"") }, "\(lines.count) lines")
    }

    @Test("standard output closed: printing is a write failure (exit 2), not success")
    func closedStandardOutput() throws {
        let result = try Self.run(["print", "--format", "json", Self.damaged], redirections: ">&-")
        #expect(result.status == 2, "\(result.errors)")
    }

    @Test("regression: a usage error into a standard error pipe nobody reads is exit 64, not death by SIGPIPE")
    func usageErrorIntoClosedPipe() throws {
        let errors = Pipe()
        try errors.fileHandleForReading.close()
        let process = Process()
        process.executableURL = OTLPDumpRunner.binary
        process.arguments = ["validate", "--max-record-bytes", "0", Self.damaged]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors.fileHandleForWriting
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try errors.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 64)
    }
}
