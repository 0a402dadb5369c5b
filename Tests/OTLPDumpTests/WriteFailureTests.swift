import Foundation
import OTLPTestSupport
import Testing

/// Standard output that cannot be written: `/dev/full` (ENOSPC on every write) is exit 2 with the errno
/// text on stderr, for every command; a closed pipe stays quiet, as it always was.
@Suite("otlp-dump write failures")
struct WriteFailureTests {
    static let file = OTLPDumpRunner.vectors.appendingPathComponent("framed/traces-mixed.jsonl").path

    static let commands: [[String]] = [
        ["print", file], ["print", "--format", "json", file], ["print", "--brief", file], ["stats", file], ["validate", file],
        ["convert", file, "-", "--to", "u32be"], ["convert", file, "-", "--to", "jsonl", "--gzip"],
    ]

    @Test(
        "standard output on /dev/full: exit 2, one message with the errno text (help and version text too)",
        arguments: commands + [["--help"], ["--version"], ["convert", "--help"]])
    func deviceFull(arguments: [String]) throws {
        let result = try OTLPProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", #"exec "$0" "$@" > /dev/full"#, OTLPDumpRunner.binary.path] + arguments)
        #expect(result.status == 2, "\(result.errors)")
        #expect(result.errors == "otlp-dump: <stdout>: write failed: No space left on device\n", "\(result.errors)")
    }

    @Test("an output file on /dev/full: exit 2 naming it")
    func outputFileFull() throws {
        let result = try OTLPDumpRunner.run(["convert", Self.file, "/dev/full", "--to", "varint"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("/dev/full: write failed: No space left on device"), "\(result.stderr)")
    }

    @Test("standard output a pipe whose reader is gone: quiet, exit 0", arguments: commands)
    func closedPipe(arguments: [String]) throws {
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()  // every write gets EPIPE
        let errors = Pipe()
        let process = Process()
        process.executableURL = OTLPDumpRunner.binary
        process.arguments = arguments
        process.standardOutput = pipe.fileHandleForWriting
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try pipe.fileHandleForWriting.close()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(String(decoding: message, as: UTF8.self) == "")
    }
}
