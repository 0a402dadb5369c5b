import Foundation
import OTLPWire
import Testing
import OTLPTestSupport

/// The reading edges of issue 10 through the real `otlp-dump` binary, from a file and from standard input:
/// overflowing prefixes, signal detection, other signals and compressions, validation depth, cut-off input
/// and long JSON lines.
@Suite("otlp-dump: reading edges")
struct ReadingEdgeTests {

    /// Runs `arguments` on a file named `name` holding `bytes`, and with the bytes on standard input (`-`).
    static func runBoth(
        _ arguments: [String], _ bytes: [UInt8], name: String = "input.bin"
    ) throws -> (file: OTLPDumpRunner.Result, stdin: OTLPDumpRunner.Result, path: String) {
        let directory = try OTLPTemporaryDirectory.make("otlp-dump-edges")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (try OTLPDumpRunner.run(arguments + [path]), try OTLPDumpRunner.run(arguments + ["-"], stdin: Data(bytes)), path)
    }

    static func framed(_ messages: [[UInt8]], framing: OTLPFraming = .u32be) throws -> [UInt8] {
        let sink = OTLPMemorySink()
        let writer = OTLPRecordWriter(sink: sink, framing: framing)
        for message in messages { try message.withUnsafeBytes { try writer.writeEncoded($0) } }
        return sink.bytes
    }

    static let span = OTLPSpan(
        traceID: OTLPTraceID(hex: "5b8efff798038103d269b633813fc60c"), spanID: OTLPSpanID(hex: "eee19b7ec3c1b174"),
        name: "GET /cart", kind: .server, startTimeUnixNano: 1_700_000_000_000_000_000, endTimeUnixNano: 1_700_000_000_250_000_000)
    static let traces = OTLPEncoder().encode(
        OTLPTracesData(resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"), items: [span]))

    @Test(
        "varint prefixes past Int.max, past 64 bits and 11 bytes long: a located error and exit 1, never a crash",
        arguments: [
            [UInt8](repeating: 0xFF, count: 9) + [0x01], [UInt8](repeating: 0x80, count: 9) + [0x01],
            [UInt8](repeating: 0xFF, count: 9) + [0x7F], [UInt8](repeating: 0xFF, count: 10) + [0x01],
        ])
    func overflowingPrefixes(prefix: [UInt8]) throws {
        for arguments in [["print"], ["validate"], ["stats"], ["--framing", "varint"], ["validate", "--framing", "varint"]] {
            let (file, stdin, _) = try Self.runBoth(arguments, prefix)
            for result in [file, stdin] {
                #expect(result.status == 1, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("record 0, byte offset 0"), "\(arguments): \(result.stderr)")
                #expect(["record_too_large", "bad_length_prefix", "truncated_record"].contains { result.stderr.contains($0) })
            }
        }
        let (file, _, _) = try Self.runBoth(
            ["validate", "--framing", "varint", "--max-record-bytes", "100"], try Self.framed([Self.traces], framing: .varint) + prefix)
        #expect(file.stderr.contains("record 1"))
    }

    @Test("logs whose records also read as spans are shown as logs, from a neutral file name and from stdin")
    func logsThatReadAsSpans() throws {
        let logs = OTLPEncoder().encode(
            OTLPLogsData(
                resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"),
                items: [OTLPLogRecord(timeUnixNano: 0, severityText: "INFO", body: .string("hello"))]))
        let bytes = try Self.framed([logs, logs])
        let (file, stdin, _) = try Self.runBoth(["--format", "json"], bytes, name: "catalog.bin")
        for result in [file, stdin] {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("{\"resourceLogs\"") }, "\(result.stdout)")
        }
        let validated = try Self.runBoth(["validate"], bytes)
        #expect(validated.stdin.stdout.contains("valid, 2 records, 2 log records"))
    }

    @Test("content that cannot tell traces from logs asks for --signal; --signal or a name token settles it")
    func ambiguousSignal() throws {
        let resourceOnly = OTLPProtobufBytes.field(
            1, OTLPProtobufBytes.field(1, OTLPProtobufBytes.field(1, OTLPProtobufBytes.field(1, Array("service.name".utf8)))))
        let bytes = try Self.framed([resourceOnly])
        let (file, stdin, _) = try Self.runBoth(["validate"], bytes)
        for result in [file, stdin] {
            #expect(result.status == 1)
            #expect(result.stderr.contains("ambiguous_signal") && result.stderr.contains("--signal"), "\(result.stderr)")
        }
        #expect(try Self.runBoth(["validate", "--signal", "logs"], bytes).stdin.status == 0)
        #expect(
            try Self.runBoth(["validate"], bytes, name: "resources.logs.u32be.bin").file.stdout.contains("valid, 1 records, 0 log records"))
    }

    @Test("JSON lines: a traces or metrics line in a logs file is wrong_kind; a profiles line is unsupported_signal")
    func jsonOtherSignals() throws {
        let logsLine = String(
            decoding: OTLPJSONEncoder().encode(
                OTLPLogsData(
                    resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"),
                    items: [OTLPLogRecord(timeUnixNano: 1, body: "x")])), as: UTF8.self)
        let tracesLine = String(
            decoding: OTLPJSONEncoder().encode(
                OTLPTracesData(resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"), items: [Self.span])), as: UTF8.self)
        for (second, kind) in [
            (tracesLine, "wrong_kind"), ("{\"resourceMetrics\":[]}", "wrong_kind"),
            ("{\"resourceProfiles\":[{}]}", "unsupported_signal"),
        ] {
            let bytes = Array((logsLine + "\n" + second + "\n" + logsLine + "\n").utf8)
            for arguments in [["--format", "json"], ["--format", "json", "--signal", "logs"]] {
                let (file, stdin, _) = try Self.runBoth(arguments, bytes, name: "app.jsonl")
                for result in [file, stdin] {
                    #expect(result.status == 1, "\(second): \(result.stderr)")
                    #expect(result.stdout.split(separator: "\n").count == 1)
                    #expect(result.stderr.contains("record 1") && result.stderr.contains(kind), "\(result.stderr)")
                }
            }
            #expect(try Self.runBoth(["validate"], bytes, name: "app.jsonl").file.status == 1)
        }
    }

    @Test(
        "xz, bzip2 and lz4 files are unsupported_compression, a damaged zstd file a zstd error, from a file and stdin, never record_too_large"
    )
    func foreignCompression() throws {
        for (name, magic) in [
            ("zstd", [0x28, 0xB5, 0x2F, 0xFD] as [UInt8]), ("xz", [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]), ("bzip2", Array("BZh9".utf8)),
            ("lz4", [0x04, 0x22, 0x4D, 0x18]),
        ] {
            let bytes = magic + [UInt8](repeating: 0x31, count: 64)
            for arguments in [["validate"], ["stats"], ["--framing", "u32be"]] {
                let (file, stdin, _) = try Self.runBoth(arguments, bytes, name: "traces.u32be.bin.\(name)")
                for result in [file, stdin] {
                    #expect(result.status == 1)
                    if name == "zstd" {
                        #expect(result.stderr.contains(": zstd_"), "\(result.stderr)")
                    } else {
                        #expect(result.stderr.contains("unsupported_compression") && result.stderr.contains(name), "\(result.stderr)")
                    }
                }
            }
        }
    }

    @Test("validate and print give the same verdict on the same bad inputs (IDs of the wrong length in every field)")
    func validateMatchesPrint() throws {
        let id16 = [UInt8](repeating: 0xAB, count: 16), id8 = [UInt8](repeating: 0xCD, count: 8)
        func spanRecord(_ body: [UInt8]) -> [UInt8] {
            OTLPProtobufBytes.field(1, OTLPProtobufBytes.field(2, OTLPProtobufBytes.field(2, body)))
        }
        let bad: [[UInt8]] = [
            spanRecord(OTLPProtobufBytes.field(1, Array(id16.prefix(15))) + OTLPProtobufBytes.field(2, id8)),
            spanRecord(OTLPProtobufBytes.field(1, id16) + OTLPProtobufBytes.field(2, Array(id8.prefix(7)))),
            spanRecord(OTLPProtobufBytes.field(1, id16) + OTLPProtobufBytes.field(2, id8) + OTLPProtobufBytes.field(4, id8 + [1])),
            spanRecord(
                OTLPProtobufBytes.field(1, id16) + OTLPProtobufBytes.field(2, id8)
                    + OTLPProtobufBytes.field(13, OTLPProtobufBytes.field(1, id8) + OTLPProtobufBytes.field(2, id8))),
            spanRecord(OTLPProtobufBytes.field(1, id16) + OTLPProtobufBytes.field(2, id8) + OTLPProtobufBytes.field(3, [0xC3, 0x28])),
            OTLPProtobufBytes.field(
                1, OTLPProtobufBytes.field(2, OTLPProtobufBytes.field(2, OTLPProtobufBytes.field(9, Array(id16.prefix(15)))))),
        ]
        for record in bad {
            let bytes = try Self.framed([Self.traces, record])
            let printed = try Self.runBoth(["--format", "json"], bytes)
            let validated = try Self.runBoth(["validate"], bytes)
            for (p, v) in [(printed.file, validated.file), (printed.stdin, validated.stdin)] {
                #expect(p.status == 1 && v.status == 1, "print \(p.stderr) / validate \(v.stdout)")
                // The same error at the same place (the temporary paths differ).
                let verdict = { (text: String) in text.range(of: ": record ").map { String(text[$0.lowerBound...]) } ?? text }
                #expect(
                    verdict(v.stderr).hasPrefix(verdict(p.stderr).trimmingCharacters(in: .newlines)),
                    "print: \(p.stderr) validate: \(v.stderr)")
                #expect(p.stderr.contains("record 1") && p.stderr.contains("malformed_protobuf"), "\(p.stderr)")
            }
        }
    }

    @Test("otlp-dump reads its own --format json output back from stdin, lines over 1 MiB included")
    func ownJSONBack() throws {
        var big = OTLPTracesData()
        for index in 0..<1500 {
            var span = Self.span
            span.name = "span \(index) " + String(repeating: "x", count: 600)
            big.append(span, resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"))
        }
        let bytes = try Self.framed([OTLPEncoder().encode(big), Self.traces, OTLPEncoder().encode(big)])
        let directory = try OTLPTemporaryDirectory.make("otlp-dump-edges")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("big.u32be.bin").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        // From a file: OTLPDumpRunner writes all of stdin before reading stdout, so megabytes must not go both ways.
        let printed = try OTLPDumpRunner.run(["--format", "json", path])
        #expect(printed.status == 0)
        let lines = printed.stdout.split(separator: "\n")
        #expect(lines.count == 3 && lines[0].utf8.count > 1 << 20)
        let validated = try OTLPDumpRunner.run(["validate", "-"], stdin: printed.stdoutBytes)
        #expect(validated.status == 0, "\(validated.stderr)")
        #expect(validated.stdout.contains("valid, 3 records, 3001 spans (jsonl"), "\(validated.stdout)")
        let stats = try OTLPDumpRunner.run(["stats", "-"], stdin: printed.stdoutBytes)
        #expect(stats.status == 0 && stats.stdout.contains("records: 3"))
    }

    @Test("a small u32be file cut at every byte inside a record, on stdin: never valid, always the truncation")
    func everyCutOnStdin() throws {
        let small = OTLPProtobufBytes.field(
            1,
            OTLPProtobufBytes.field(
                2, OTLPProtobufBytes.field(2, [UInt8](repeating: 0, count: 0) + OTLPProtobufBytes.field(3, Array("tiny".utf8)))))
        let bytes = try Self.framed([small, Self.traces])
        let boundaries = [0, 4 + small.count, bytes.count]
        for cut in 1..<bytes.count where !boundaries.contains(cut) {
            let result = try OTLPDumpRunner.run(["validate", "-"], stdin: Data(bytes[..<cut]))
            #expect(result.status == 1, "cut at \(cut): \(result.stdout)")
            #expect(
                result.stderr.contains("truncated_length_prefix") || result.stderr.contains("truncated_record"),
                "cut at \(cut): \(result.stderr)")
        }
    }
}
