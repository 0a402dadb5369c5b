import Foundation
import Testing
import OTLPTestSupport

@Suite("otlp-dump")
struct OTLPDumpTests {
    nonisolated(unsafe) static let manifest: [[String: Any]] = {
        let data = try! Data(contentsOf: OTLPDumpRunner.vectors.appendingPathComponent("manifest.json"))
        return (try! JSONSerialization.jsonObject(with: data) as! [String: Any])["files"] as! [[String: Any]]
    }()

    struct Vector: CustomStringConvertible, @unchecked Sendable {
        let entry: [String: Any]
        var path: String { entry["path"] as! String }
        var description: String { path }
    }

    static let damaged = manifest.filter { ($0["expect"] as! [String: Any])["outcome"] as! String == "error" }.map(Vector.init)

    @Test("damaged input: records before the fault on stdout, one located error on stderr, exit 1", arguments: damaged)
    func damagedInput(vector: Vector) throws {
        let expect = vector.entry["expect"] as! [String: Any]
        let framing = vector.entry["framing"] as! String
        let kind = vector.entry["kind"] as! String
        let file = OTLPDumpRunner.vectors.appendingPathComponent(vector.path).path
        let result = try OTLPDumpRunner.run(["--format", "json", "--framing", framing, "--signal", kind, file])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n")
        let minimum = expect["records_readable_before_error_min"] as? Int ?? expect["records_readable_before_error"] as! Int
        #expect((minimum...(expect["records_readable_before_error"] as! Int)).contains(lines.count))
        let errorLines = result.stderr.split(separator: "\n")
        #expect(errorLines.count == 1, "\(result.stderr)")
        let classes = [expect["error_class"] as! String] + (expect["also_acceptable"] as? [String] ?? [])
        #expect(classes.contains { result.stderr.contains($0) }, "\(result.stderr)")
        #expect(result.stderr.contains(file))
        #expect(result.stderr.contains("record \(lines.count)"))
        #expect(result.stderr.contains("byte offset"))
    }

    @Test("valid files: exit 0, JSON lines match the reference content count")
    func validFiles() throws {
        let file = OTLPDumpRunner.vectors.appendingPathComponent("framed/traces-mixed-multimember.varint.bin.gz").path
        let result = try OTLPDumpRunner.run(["--format", "json", file])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        let expected = try String(contentsOf: OTLPDumpRunner.vectors.appendingPathComponent("framed/traces-mixed.jsonl"), encoding: .utf8)
        #expect(result.stdout.split(separator: "\n").count == expected.split(separator: "\n").count)
    }

    @Test("standard input with `-`, tree output is deterministic and uncoloured off a terminal")
    func standardInput() throws {
        let data = try Data(contentsOf: OTLPDumpRunner.vectors.appendingPathComponent("traces/app-telemetry.pb"))
        let first = try OTLPDumpRunner.run(["--framing", "none", "-"], stdin: data)
        let second = try OTLPDumpRunner.run(["-"], stdin: data)
        #expect(first.status == 0)
        #expect(first.stdout == second.stdout)
        #expect(!first.stdout.contains("\u{1B}["))
        #expect(first.stdout.contains("AppStart"))
        #expect(first.stdout.contains("|████████████████████████| HomeScreen 28.32s"))
        let colored = try OTLPDumpRunner.run(["--color", "always", "-"], stdin: data)
        #expect(colored.stdout.contains("\u{1B}["))
    }

    @Test("validate: verdict in the exit status")
    func validate() throws {
        let good = OTLPDumpRunner.vectors.appendingPathComponent("framed/logs-mixed.u32be.bin.gz").path
        let bad = OTLPDumpRunner.vectors.appendingPathComponent("bad/traces-deep-array-100000.pb").path
        let ok = try OTLPDumpRunner.run(["validate", good])
        #expect(ok.status == 0)
        #expect(ok.stdout.contains("valid, 30 records, 901 log records"))
        let failed = try OTLPDumpRunner.run(["validate", good, bad])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("nesting_too_deep"))
    }

    @Test("stats counts per signal, scope and severity")
    func stats() throws {
        let file = OTLPDumpRunner.vectors.appendingPathComponent("framed/logs-mixed.varint.bin").path
        let result = try OTLPDumpRunner.run(["stats", file])
        #expect(result.status == 0)
        #expect(result.stdout.contains("records: 30"))
        #expect(result.stdout.contains("901  logs (log records)"))
        #expect(result.stdout.contains("by severity:"))
    }

    @Test("regression: once --limit is reached no later file is read: no empty requests printed, none counted")
    func limitAcrossFiles() throws {
        let logs = OTLPDumpRunner.vectors.appendingPathComponent("framed/logs-mixed.u32be.bin").path
        let printed = try OTLPDumpRunner.run(["print", "--format", "json", "--limit", "1", logs, logs, logs])
        #expect(printed.status == 0)
        let lines = printed.stdout.split(separator: "\n")
        #expect(lines.count == 1 && !printed.stdout.contains("{}"), "\(lines.count) lines: \(printed.stdout.prefix(300))")
        let stats = try OTLPDumpRunner.run(["stats", "--limit", "1", logs, logs, logs])
        #expect(stats.status == 0)
        #expect(stats.stdout.contains("records: 1\n"), "\(stats.stdout)")
    }

    @Test("filters: --severity-min, --limit, --name glob, --trace-id")
    func filters() throws {
        let logs = OTLPDumpRunner.vectors.appendingPathComponent("framed/logs-mixed.u32be.bin").path
        let limited = try OTLPDumpRunner.run(["--format", "json", "--severity-min", "error", "--limit", "5", logs])
        #expect(limited.status == 0)
        let count = limited.stdout.components(separatedBy: "\"severityNumber\":").count - 1
        #expect(count == 5)
        let traces = OTLPDumpRunner.vectors.appendingPathComponent("traces/app-telemetry.pb").path
        let named = try OTLPDumpRunner.run(["--brief", "--name", "HomeScreen.on*", traces])
        #expect(named.stdout.contains("HomeScreen.onAppear"))
        #expect(!named.stdout.contains("AppStart"))
        let traced = try OTLPDumpRunner.run(["--brief", "--trace-id", "69c362ceee31428eb050fbb5c1016c82", traces])
        #expect(traced.stdout.contains("AppStart"))
        #expect(!traced.stdout.contains("HomeScreen"))
    }

    @Test("convert between framings in both directions, JSON lines through protobuf-c, gzip")
    func convert() throws {
        let directory = try OTLPTemporaryDirectory.make("otlp-dump-convert")
        defer { try? FileManager.default.removeItem(at: directory) }
        let jsonl = OTLPDumpRunner.vectors.appendingPathComponent("framed/traces-mixed.jsonl").path
        let reference = try Data(contentsOf: OTLPDumpRunner.vectors.appendingPathComponent("framed/traces-mixed.u32be.bin"))
        let u32 = directory.appendingPathComponent("a.u32be.bin").path
        #expect(try OTLPDumpRunner.run(["convert", jsonl, u32, "--to", "u32be"]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: u32)) == reference)
        let varintGz = directory.appendingPathComponent("b.varint.bin.gz").path
        #expect(try OTLPDumpRunner.run(["convert", u32, varintGz, "--to", "varint", "--gzip"]).status == 0)
        let back = directory.appendingPathComponent("c.bin").path
        #expect(try OTLPDumpRunner.run(["convert", varintGz, back, "--to", "u32be"]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: back)) == reference)
        let toStdout = try OTLPDumpRunner.run(["convert", back, "-", "--to", "jsonl"])
        #expect(toStdout.stdout.split(separator: "\n").count == 50)
    }

    @Test("convert to an output that is a symbolic link: the user's link is followed, once, and stderr says to which file")
    func convertThroughSymlink() throws {
        let directory = try OTLPTemporaryDirectory.make("otlp-dump-convert-link")
        defer { try? FileManager.default.removeItem(at: directory) }
        let framed = OTLPDumpRunner.vectors.appendingPathComponent("framed/traces-mixed.u32be.bin")
        let target = directory.appendingPathComponent("target.bin").path, link = directory.appendingPathComponent("out.bin").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let result = try OTLPDumpRunner.run(["convert", framed.path, link, "--to", "u32be"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains("\(link) is a symbolic link: writing to ") && result.stderr.contains("target.bin"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == Data(contentsOf: framed))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
    }

    @Test("limit options override the defaults: each refuses a file the defaults accept, naming the limit")
    func limitOptions() throws {
        let message = OTLPDumpRunner.vectors.appendingPathComponent("traces/app-telemetry.pb").path
        let framed = OTLPDumpRunner.vectors.appendingPathComponent("framed/traces-mixed.u32be.bin").path
        let lines = OTLPDumpRunner.vectors.appendingPathComponent("framed/traces-mixed.jsonl").path
        #expect(try OTLPDumpRunner.run(["validate", "--framing", "none", message]).status == 0)
        for (arguments, kind) in [
            (["--max-attributes-per-item", "2", "--framing", "none", message], "too_many_attributes"),
            (["--max-decoded-bytes", "4096", "--framing", "none", message], "record_too_large"),
            (["--max-nesting-depth", "3", "--framing", "none", message], "nesting_too_deep"),
            (["--max-record-bytes", "100", framed], "record_too_large"),
            (["--max-line-bytes", "100", lines], "line_too_long"),
        ] {
            let result = try OTLPDumpRunner.run(["validate"] + arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr.contains(kind) && result.stderr.contains("record 0"), "\(arguments): \(result.stderr)")
        }
        #expect(try OTLPDumpRunner.run(["validate", "--max-attributes-per-item", "-1", message]).status == 64)
    }

    @Test("usage errors exit 64; a missing file exits 2")
    func usageAndIO() throws {
        #expect(try OTLPDumpRunner.run(["--trace-id", "xyz"]).status == 64)
        #expect(try OTLPDumpRunner.run(["--framing", "bogus"]).status == 64)
        // Regression (hostile review): options that cannot go together were accepted without a word.
        for arguments in [
            ["validate", "--input-compression", "zstd-records", "--framing", "jsonl", "-"],
            ["print", "--input-compression", "zstd-records", "--framing", "varint", "-"],
            ["convert", "--input-compression", "zstd-records", "--from", "jsonl", "in.bin", "out.bin", "--to", "u32be"],
            ["convert", "--input-compression", "zstd-records", "--from", "varint", "in.bin", "out.bin", "--to", "jsonl"],
            ["convert", "in.bin", "out.bin", "--to", "u32be", "--zstd", "--gzip"],
        ] {
            let refused = try OTLPDumpRunner.run(arguments)
            #expect(
                refused.status == 64
                    && (refused.stderr.contains("\(arguments[0] == "convert" ? "--from" : "--framing") ")
                        || refused.stderr.contains("two compressions")),
                "\(arguments): \(refused.stderr)")
        }
        let missing = try OTLPDumpRunner.run(["/nonexistent/file.u32be.bin"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("/nonexistent/file.u32be.bin"))
    }

    @Test("--help documents the commands and exit statuses")
    func help() throws {
        let result = try OTLPDumpRunner.run(["--help"])
        #expect(result.status == 0)
        for text in ["print", "stats", "validate", "convert", "Exit status", "64  usage error", "1   damaged or invalid input"] {
            #expect(result.stdout.contains(text), "missing \(text)")
        }
        let printHelp = try OTLPDumpRunner.run(["print", "--help"])
        for option in [
            "--framing", "--signal", "--max-record-bytes", "--max-nesting-depth", "--max-attributes-per-item", "--max-decoded-bytes",
            "--max-line-bytes", "--max-inflation-ratio", "--trace-id", "--name", "--severity-min", "--limit", "--format",
        ] {
            #expect(printHelp.stdout.contains(option), "missing \(option)")
        }
    }

    /// Regression: send's exit statuses were wider than the help's 80 columns, and their wrapped ends began
    /// at the left margin, out of the list.
    @Test("every command's exit-status list stays in its columns: each line after the title is indented")
    func exitStatusListsStayIndented() throws {
        for command in [[], ["print"], ["stats"], ["validate"], ["convert"], ["send"]] {
            let help = try OTLPDumpRunner.run(command + ["--help"]).stdout
            guard let title = help.range(of: "Exit status:\n") else { continue }
            let list = help[title.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.isEmpty }
            #expect(!list.isEmpty, "\(command)")
            for line in list { #expect(line.hasPrefix("  "), "\(command): \(line)") }
        }
    }
}

@Suite("otlp-dump memory on hostile files", .serialized)
struct OTLPDumpMemoryTests {
    /// Runs otlp-dump under a fresh Python process whose only child it is, and returns that child's peak
    /// RSS in KiB (this test process has other children, so its own RUSAGE_CHILDREN would mix them in).
    static func peakKiB(_ arguments: [String]) throws -> (status: Int32, peakKiB: Int, stderr: String) {
        let script = """
            import resource, subprocess, sys
            r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            sys.stderr.write(r.stderr.decode())
            print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, OTLPDumpRunner.binary.path] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let fields = output.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        return (Int32(fields.first ?? -1), fields.count > 1 ? fields[1] : Int.max, errors)
    }

    static func gzip(repeating count: Int, to file: URL) throws {
        // Made with the system's gzip from a stream: a 4-byte prefix then `count` MiB of zeros, written by the
        // shell straight to the file (no pipe back into the test process).
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "(printf '\\003\\377\\377\\377'; head -c \(count)M /dev/zero) | gzip -9 > \"$0\"", file.path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test(
        "a gzip bomb and a 4 GiB length prefix: a clear error, peak memory under 100 MB; a record that would unpack to 3.8 GB: refused under 200 MB"
    )
    func peakMemory() throws {
        let directory = try OTLPTemporaryDirectory.make("dump-memory")
        defer { try? FileManager.default.removeItem(at: directory) }
        let bomb = directory.appendingPathComponent("bomb.u32be.bin.gz")
        try Self.gzip(repeating: 1024, to: bomb)  // 1 GiB of zeros behind a 64 MiB length prefix
        let prefix = directory.appendingPathComponent("huge.u32be.bin")
        try Data([0xFF, 0xFF, 0xFF, 0xFF] + [UInt8](repeating: 7, count: 1 << 20)).write(to: prefix)

        // The record size limit is raised to the prefix's 64 MiB, so the inflation ratio is what stops it.
        let bombResult = try Self.peakKiB(["validate", "--max-record-bytes", "67108864", bomb.path])
        #expect(bombResult.status == 1)
        #expect(bombResult.stderr.contains("gzip_too_large"), "\(bombResult.stderr)")
        // Under a sanitizer (make sanitize) shadow memory and quarantine dwarf the program's own: the bound is
        // checked in normal builds.
        let sanitized =
            ProcessInfo.processInfo.environment["ASAN_OPTIONS"] != nil || ProcessInfo.processInfo.environment["TSAN_OPTIONS"] != nil
        #expect(sanitized || bombResult.peakKiB < 100 * 1024, "peak RSS \(bombResult.peakKiB) KiB on the gzip bomb")
        let prefixResult = try Self.peakKiB(["validate", prefix.path])
        #expect(prefixResult.status == 1)
        #expect(prefixResult.stderr.contains("record_too_large") && prefixResult.stderr.contains("record 0, byte offset 0"))
        #expect(sanitized || prefixResult.peakKiB < 100 * 1024, "peak RSS \(prefixResult.peakKiB) KiB on the 4 GiB prefix")

        // 60 MB of empty attributes (3,000 spans x 10,000): protobuf-c would unpack it into ~3.8 GB.
        let amplifier = directory.appendingPathComponent("empty-attributes.u32be.bin")
        let generate = Process()
        generate.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        generate.arguments = [
            "python3", "-c",
            """
            import struct, sys
            def field(number, payload):
                n, prefix = len(payload), bytearray([number << 3 | 2])
                while n >= 0x80: prefix.append(n & 0x7F | 0x80); n >>= 7
                return bytes(prefix) + bytes([n]) + payload
            span = field(2, b"\\x4a\\x00" * 10000)
            request = field(1, field(2, span * 3000))
            open(sys.argv[1], "wb").write(struct.pack(">I", len(request)) + request)
            """, amplifier.path,
        ]
        try generate.run()
        generate.waitUntilExit()
        // A 60 MB record needs a raised record limit (default 8 MiB); the decoded-memory limit then refuses it.
        let amplified = try Self.peakKiB(["validate", "--max-record-bytes", "67108864", amplifier.path])
        #expect(amplified.status == 1)
        #expect(amplified.stderr.contains("record_too_large") && amplified.stderr.contains("bytes of memory"), "\(amplified.stderr)")
        #expect(sanitized || amplified.peakKiB < 200 * 1024, "peak RSS \(amplified.peakKiB) KiB on 60 MB of empty attributes")
        print(
            "otlp-dump peak RSS: gzip bomb \(bombResult.peakKiB / 1024) MiB, 4 GiB length prefix \(prefixResult.peakKiB / 1024) MiB, "
                + "60 MB of empty attributes \(amplified.peakKiB / 1024) MiB")
    }

    /// Writes the hostile and near-limit inputs of the memory tests into `directory`, with a Python script
    /// (the files are large; generating them in Swift debug builds is slow).
    static func writeInputs(to directory: URL) throws {
        let generate = Process()
        generate.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        generate.currentDirectoryURL = directory
        generate.arguments = [
            "python3", "-c",
            """
            import gzip, struct
            def field(number, payload):
                n, prefix = len(payload), bytearray([number << 3 | 2])
                while n >= 0x80: prefix.append(n & 0x7F | 0x80); n >>= 7
                return bytes(prefix) + bytes([n]) + payload
            def u32(message): return struct.pack(">I", len(message)) + message
            def spans_line(spans): return b'{"resourceSpans":[{"scopeSpans":[{"spans":[' + spans + b']}]}]}\\n'
            # hostile: each would take gigabytes if decoded whole
            open("empty-spans.u32be.bin.gz", "wb").write(gzip.compress(u32(field(1, field(2, b"\\x12\\x00" * 3_500_000))), 9))
            open("empty-spans.jsonl", "wb").write(spans_line(b",".join([b"{}"] * 22_000_000)))
            open("no-newline.jsonl", "wb").write(b'{"resourceSpans":[' + b" " * (200 << 20))
            open("empty-attributes.u32be.bin", "wb").write(u32(field(1, field(2, field(2, b"\\x4a\\x00" * 1000) * 3000))) * 5)
            open("empty-attributes.jsonl", "wb").write(spans_line(b'{"attributes":[' + b",".join([b'{"key":""}'] * 700_000) + b']}') * 3)
            # near the default limits, and read: what a reader really holds at its peak
            open("near-spans.u32be.bin", "wb").write(u32(field(1, field(2, b"\\x12\\x00" * 60_000))) * 3)
            open("near-spans.jsonl", "wb").write(spans_line(b",".join([b"{}"] * 120_000)) * 2)
            open("near-attributes.u32be.bin", "wb").write(u32(field(1, field(2, field(2, b"\\x4a\\x00" * 1000) * 180))) * 3)
            open("big-string.u32be.bin", "wb").write(u32(field(1, field(2, field(2, field(5, b"x" * ((8 << 20) - 64)))))) * 2)
            # a span whose status occurs twice: the merged copy of the record is held too
            merged = field(5, b"x" * ((8 << 20) - 80)) + field(15, b"\\x18\\x02") + field(15, field(2, b"m"))
            open("big-string-merged.u32be.bin", "wb").write(u32(field(1, field(2, field(2, merged)))) * 2)
            open("big-string.jsonl", "wb").write(spans_line(b'{"name":"' + b"x" * 8_000_000 + b'"}') * 2)
            """,
        ]
        try generate.run()
        generate.waitUntilExit()
        #expect(generate.terminationStatus == 0)
    }

    @Test("with the default limits, otlp-dump stays under 100 MB on any input: hostile files are refused early, near-limit files are read")
    func defaultsBoundMemory() throws {
        let directory = try OTLPTemporaryDirectory.make("dump-defaults")
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.writeInputs(to: directory)
        let sanitized =
            ProcessInfo.processInfo.environment["ASAN_OPTIONS"] != nil || ProcessInfo.processInfo.environment["TSAN_OPTIONS"] != nil
        let cases: [(file: String, refusal: String?)] = [
            ("empty-spans.u32be.bin.gz", "record_too_large"), ("empty-spans.jsonl", "line_too_long"), ("no-newline.jsonl", "line_too_long"),
            ("empty-attributes.u32be.bin", "record_too_large"), ("empty-attributes.jsonl", "record_too_large"),
            ("near-spans.u32be.bin", nil), ("near-spans.jsonl", nil), ("near-attributes.u32be.bin", nil),
            ("big-string.u32be.bin", nil), ("big-string-merged.u32be.bin", nil), ("big-string.jsonl", nil),
        ]
        var report: [String] = []
        for (file, refusal) in cases {
            // Under a sanitizer memory is not what is measured (and every run is slower): one command checks the verdicts.
            let commands = sanitized ? [["print"]] : [["print"], ["validate"], ["stats"], ["print", "--format", "json"]]
            for command in commands {
                let result = try Self.peakKiB(command + [directory.appendingPathComponent(file).path])
                let what = "\(command.joined(separator: " ")) \(file)"
                if let refusal {
                    #expect(
                        result.status == 1 && result.stderr.contains(refusal) && result.stderr.contains("record 0"),
                        "\(what): \(result.stderr)")
                } else {
                    #expect(result.status == 0, "\(what): \(result.stderr)")
                }
                #expect(sanitized || result.peakKiB < 100 * 1024, "\(what): peak RSS \(result.peakKiB) KiB")
                report.append("\(what) \(result.peakKiB / 1024) MiB")
            }
        }
        print("otlp-dump peak RSS with the default limits: " + report.joined(separator: ", "))
    }
}

@Suite("otlp-dump tree printer on hostile span graphs")
struct OTLPDumpTreeTests {
    @Test("a parent chain as long as the record (40,000 spans, each the parent of the next) prints every span, without recursion")
    func longParentChain() throws {
        let directory = try OTLPTemporaryDirectory.make("dump-chain")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("chain.u32be.bin")
        let generate = Process()
        generate.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        generate.arguments = [
            "python3", "-c",
            """
            import struct, sys
            def field(number, payload):
                n, prefix = len(payload), bytearray([number << 3 | 2])
                while n >= 0x80: prefix.append(n & 0x7F | 0x80); n >>= 7
                return bytes(prefix) + bytes([n]) + payload
            spans = b"".join(field(2, field(1, b"\\x01" * 16) + field(2, struct.pack(">Q", i))
                                        + (field(4, struct.pack(">Q", i - 1)) if i > 1 else b"") + field(5, b"s"))
                             for i in range(1, 40001))
            request = field(1, field(2, spans))
            open(sys.argv[1], "wb").write(struct.pack(">I", len(request)) + request)
            """, file.path,
        ]
        try generate.run()
        generate.waitUntilExit()
        let result = try OTLPDumpRunner.run(["--brief", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").filter { $0.contains("| s ") }.count == 40_000)
    }
}

@Suite("otlp-dump limit options")
struct OTLPDumpLimitOptionTests {
    static let file = OTLPDumpRunner.vectors.appendingPathComponent("traces/all-fields.pb").path

    @Test(
        "each limit option at its documented maximum reads a file; one past it is a usage error naming the option and its range",
        arguments: [
            ("--max-record-bytes", 2_147_483_647, "1...2147483647"), ("--max-nesting-depth", 128, "1...128"),
            ("--max-attributes-per-item", 1_000_000, "0...1000000"), ("--max-decoded-bytes", 68_719_476_736, "1...68719476736"),
            ("--max-line-bytes", 2_147_483_647, "1...2147483647"),
        ])
    func ranges(option: String, maximum: Int, range: String) throws {
        let atMaximum = try OTLPDumpRunner.run(["validate", option, String(maximum), Self.file])
        #expect(atMaximum.status == 0, "\(atMaximum.stderr)")
        for value in [maximum + 1, Int.max, -1] {
            let past = try OTLPDumpRunner.run(["validate", option, String(value), Self.file])
            #expect(past.status == 64, "\(option) \(value)")
            #expect(past.stderr.contains(option) && past.stderr.contains(range), "\(past.stderr)")
        }
    }

    @Test("the gzip limits: 0 decompressed bytes means no limit, a negative value or ratio is a usage error, Int.max works")
    func gzipLimits() throws {
        #expect(try OTLPDumpRunner.run(["validate", "--max-decompressed-bytes", "0", Self.file]).status == 0)
        #expect(try OTLPDumpRunner.run(["validate", "--max-decompressed-bytes", String(Int.max), Self.file]).status == 0)
        #expect(try OTLPDumpRunner.run(["validate", "--max-inflation-ratio", String(Int.max), Self.file]).status == 0)
        #expect(try OTLPDumpRunner.run(["validate", "--max-decompressed-bytes", "-1", Self.file]).status == 64)
        let ratio = try OTLPDumpRunner.run(["validate", "--max-inflation-ratio", "0", Self.file])
        #expect(ratio.status == 64 && ratio.stderr.contains("--max-inflation-ratio"))
    }

    /// The first 99,644 decompressed bytes of traces-mixed hold 24 complete records, the first 188,957 bytes 48: the
    /// records within the limit are delivered whether the bytes come from one gzip member or many.
    @Test(
        "--max-decompressed-bytes: the records within the limit are delivered before gzip_too_large, single- and multi-member alike",
        arguments: [(100_000, 24), (200_000, 48)])
    func recordsBeforeDecompressedLimit(limit: Int, records: Int) throws {
        for name in ["traces-mixed.u32be.bin.gz", "traces-mixed-multimember.u32be.bin.gz"] {
            let file = OTLPDumpRunner.vectors.appendingPathComponent("framed/\(name)").path
            let validate = try OTLPDumpRunner.run(["validate", "--max-decompressed-bytes", String(limit), file])
            #expect(validate.status == 1)
            #expect(validate.stderr.contains("\(file): record \(records), byte offset "), "\(name): \(validate.stderr)")
            #expect(
                validate.stderr.contains(
                    "(file): gzip_too_large: decompressed data exceeds the limit of \(limit) bytes [\(records) valid records before it]"),
                "\(name): \(validate.stderr)")
            let printed = try OTLPDumpRunner.run(["--format", "json", "--max-decompressed-bytes", String(limit), file])
            #expect(printed.status == 1)
            #expect(printed.stdout.split(separator: "\n").count == records, "\(name)")
        }
    }
}
