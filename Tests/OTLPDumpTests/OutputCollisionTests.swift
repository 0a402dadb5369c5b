import Foundation
import OTLPTestSupport
import Testing

/// Every output of `otlp-dump` (convert's output file, standard output of every command) is refused when it
/// is one of the inputs, by device and inode; the input is left untouched.
@Suite("otlp-dump output over input")
struct OutputCollisionTests {
    /// A scratch directory holding a copy of a valid traces file (`in.jsonl`), a hard link and a symbolic link to it.
    struct Scratch {
        let directory: URL
        let original: Data
        var file: String { directory.appendingPathComponent("in.jsonl").path }
        var hardLink: String { directory.appendingPathComponent("hard.jsonl").path }
        var symbolicLink: String { directory.appendingPathComponent("soft.jsonl").path }

        init() throws {
            directory = OTLPTemporaryDirectory.unusedPath("otlp-dump-collision")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            original = try Data(contentsOf: OTLPDumpRunner.vectors.appendingPathComponent("framed/traces-mixed.jsonl"))
            try original.write(to: URL(fileURLWithPath: directory.appendingPathComponent("in.jsonl").path))
            try FileManager.default.linkItem(atPath: file, toPath: hardLink)
            try FileManager.default.createSymbolicLink(atPath: symbolicLink, withDestinationPath: file)
        }

        func unchanged() throws -> Bool { try Data(contentsOf: URL(fileURLWithPath: file)) == original }
        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    /// Runs `otlp-dump` through the shell, so standard input and output can be redirected onto files.
    static func shell(_ script: String, _ arguments: [String]) throws -> OTLPProcess.Result {
        try OTLPProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", script, OTLPDumpRunner.binary.path] + arguments)
    }

    @Test(
        "convert IN OUT: the same path, another spelling, a hard link, a symbolic link, stdin from OUT: exit 64 naming both, input intact")
    func convertOntoInput() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let dotted = scratch.directory.path + "/./in.jsonl"
        for (input, output) in [
            (scratch.file, scratch.file), (scratch.file, dotted), (scratch.file, scratch.hardLink), (scratch.symbolicLink, scratch.file),
        ] {
            let result = try OTLPDumpRunner.run(["convert", input, output, "--to", "u32be"])
            #expect(result.status == 64, "\(input) → \(output): \(result.stderr)")
            #expect(result.stderr.contains("output \(output) is the same file as input \(input)"), "\(result.stderr)")
            #expect(try scratch.unchanged())
        }
        let fromStandardInput = try Self.shell(#"exec "$0" convert - "$1" --to u32be < "$1""#, [scratch.file])
        #expect(
            fromStandardInput.status == 64 && fromStandardInput.errors.contains("is the same file as input <stdin>"),
            "\(fromStandardInput.errors)")
        #expect(try scratch.unchanged())
        let appendedToInput = try Self.shell(#"exec "$0" convert "$1" - --to jsonl >> "$1""#, [scratch.file])
        #expect(
            appendedToInput.status == 64 && appendedToInput.errors.contains("output <stdout> is the same file as input \(scratch.file)"),
            "\(appendedToInput.errors)")
        #expect(try scratch.unchanged())
        // A different file is fine.
        let elsewhere = scratch.directory.appendingPathComponent("out.bin").path
        #expect(try OTLPDumpRunner.run(["convert", scratch.file, elsewhere, "--to", "u32be"]).status == 0)
    }

    @Test(
        "print, stats and validate with standard output appended to an input: exit 64, input intact; /dev/null is fine",
        arguments: [["print", "--format", "json"], ["stats"], ["validate"]])
    func standardOutputOntoInput(command: [String]) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let result = try Self.shell(#"out="$1"; shift; exec "$0" "$@" >> "$out""#, [scratch.symbolicLink] + command + [scratch.hardLink])
        #expect(result.status == 64, "\(result.errors)")
        #expect(result.errors.contains("output <stdout> is the same file as input \(scratch.hardLink)"), "\(result.errors)")
        #expect(try scratch.unchanged())
        let toNull = try Self.shell(#"exec "$0" "$@" > /dev/null"#, command + [scratch.file])
        #expect(toNull.status == 0, "\(toNull.errors)")
    }
}
