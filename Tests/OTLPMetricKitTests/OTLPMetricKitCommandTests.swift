import Foundation
import OTLPTestSupport
import Testing
@testable import otlp_metrickit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `otlp-metrickit` end to end: the samples and one broken payload in, the outputs decoded by the reference
/// opentelemetry-proto package.
@Suite("otlp-metrickit")
struct OTLPMetricKitCommandTests {
    static let repository = OTLPProcess.repository

    static func binary(_ name: String) -> URL { OTLPProcess.executable(name) }

    static func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let result = try OTLPProcess.run(executable, arguments)
        return (result.status, result.output, result.errors)
    }

    @Test(
        "converts every sample; a broken payload is named with its JSON path and sets the exit status; the reference decoder reads the output"
    )
    func samples() throws {
        let directory = OTLPTemporaryDirectory.unusedPath("metrickit")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("in"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let samples = MetricKitConverterTests.samples
        for name in ["metric-full.json", "metric-legacy-minimal.json", "diagnostic-all-kinds.json"] {
            try FileManager.default.copyItem(at: samples.appendingPathComponent(name), to: directory.appendingPathComponent("in/\(name)"))
        }
        try #"{"timeStampBegin": "2025-06-02 00:00:00", "cpuMetrics": {"cumulativeCPUTime": "12 sec"}"#
            .write(to: directory.appendingPathComponent("in/bad.json"), atomically: true, encoding: .utf8)
        let traces = directory.appendingPathComponent("traces.u32be.bin").path
        let logs = directory.appendingPathComponent("logs.u32be.bin.gz").path
        let result = try Self.run(
            Self.binary("otlp-metrickit"), [directory.appendingPathComponent("in").path, "--traces", traces, "--logs", logs, "--gzip"])
        #expect(result.status == 1)
        #expect(result.errors.contains("bad.json: $: not valid JSON at byte 87"), "\(result.errors)")
        #expect(result.errors.contains("4 payloads: 2 metric, 1 diagnostic, 1 failed; wrote 6 spans, 5 log records"))

        let script = Self.repository.appendingPathComponent("scripts/reference-decode.py").path
        let env = URL(fileURLWithPath: "/usr/bin/env")
        let decodedTraces = try Self.run(env, ["python3", script, traces, "u32be", "traces"])
        #expect(decodedTraces.status == 0, "\(decodedTraces.errors)")
        #expect(decodedTraces.output.split(separator: "\n").count == 3)  // one record per converted payload
        #expect(decodedTraces.output.contains("\"MXMetricPayload\"") && decodedTraces.output.contains("\"MXSignpostMetric\""))
        let decodedLogs = try Self.run(env, ["python3", script, logs, "u32be", "logs"])
        #expect(decodedLogs.status == 0, "\(decodedLogs.errors)")
        #expect(decodedLogs.output.components(separatedBy: "\"eventName\"").count - 1 == 5)
    }

    @Test(
        "--zstd writes the Collector's zstd records (protobuf and JSON) that the reference decoder reads; with varint or --gzip, a usage error"
    )
    func zstdRecords() throws {
        let directory = try OTLPTemporaryDirectory.make("metrickit-zstd")
        defer { try? FileManager.default.removeItem(at: directory) }
        let samples = MetricKitConverterTests.samples
        let payloads = ["metric-full.json", "diagnostic-all-kinds.json"].map { samples.appendingPathComponent($0).path }
        let script = Self.repository.appendingPathComponent("scripts/reference-decode.py").path
        let env = URL(fileURLWithPath: "/usr/bin/env")
        for framing in ["u32be", "jsonl"] {
            let traces = directory.appendingPathComponent("traces-\(framing).zst").path
            let logs = directory.appendingPathComponent("logs-\(framing).zst").path
            let result = try Self.run(
                Self.binary("otlp-metrickit"), payloads + ["--traces", traces, "--logs", logs, "--zstd", "--framing", framing])
            #expect(result.status == 0, "\(result.errors)")
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: traces)))
            // A u32be length, then a zstd frame (magic 28 b5 2f fd) whatever the framing.
            #expect(bytes.count > 8 && Array(bytes[4..<8]) == [0x28, 0xB5, 0x2F, 0xFD], "\(bytes.prefix(8))")
            let decodedTraces = try Self.run(env, ["python3", script, traces, "u32be", "traces"])
            #expect(decodedTraces.status == 0, "\(decodedTraces.errors)")
            #expect(decodedTraces.output.contains("\"MXMetricPayload\""), "\(decodedTraces.output.prefix(300))")
            let decodedLogs = try Self.run(env, ["python3", script, logs, "u32be", "logs"])
            #expect(decodedLogs.status == 0, "\(decodedLogs.errors)")
            #expect(decodedLogs.output.contains("\"eventName\""), "\(decodedLogs.output.prefix(300))")
        }
        for wrong in [["--zstd", "--framing", "varint"], ["--zstd", "--gzip"]] {
            let result = try Self.run(Self.binary("otlp-metrickit"), [payloads[0], "--traces", "/dev/null"] + wrong)
            #expect(result.status == 64, "\(wrong): \(result.errors)")
        }
    }

    @Test("an output that is a symbolic link is followed (the user named it), once, and stderr says to which file")
    func outputThroughSymlink() throws {
        let directory = try OTLPTemporaryDirectory.make("metrickit-link")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sample = MetricKitConverterTests.samples.appendingPathComponent("metric-full.json").path
        let target = directory.appendingPathComponent("real.bin").path, link = directory.appendingPathComponent("traces.bin").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let result = try Self.run(Self.binary("otlp-metrickit"), [sample, "--traces", link])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.errors.contains("\(link) is a symbolic link: writing to ") && result.errors.contains("real.bin"), "\(result.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)).count > 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
    }

    @Test("a payload over --max-payload-bytes fails by name without being read whole; /dev/zero does not hang")
    func payloadLimit() throws {
        let sample = MetricKitConverterTests.samples.appendingPathComponent("metric-full.json").path
        let size = try #require(try FileManager.default.attributesOfItem(atPath: sample)[.size] as? Int)
        let exact = try Self.run(Self.binary("otlp-metrickit"), [sample, "--traces", "/dev/null", "--max-payload-bytes", "\(size)"])
        #expect(exact.status == 0, "\(exact.errors)")
        let over = try Self.run(
            Self.binary("otlp-metrickit"), [sample, "/dev/zero", "--traces", "/dev/null", "--max-payload-bytes", "\(size - 1)"])
        #expect(over.status == 1)
        #expect(over.errors.contains("\(sample): payload is larger than \(size - 1) bytes"), "\(over.errors)")
        #expect(over.errors.contains("/dev/zero: payload is larger than"), "\(over.errors)")
        #expect(over.errors.contains("2 payloads: 0 metric, 0 diagnostic, 2 failed"), "\(over.errors)")
    }

    /// Runs `otlp-metrickit` with `arguments`, output to files (no pipe to drain), waiting at most `limit`
    /// seconds: a process still running then is killed and `nil` returned, so a hang fails the test instead
    /// of blocking it.
    static func runBounded(_ arguments: [String], in directory: URL, limit: Int = 120) throws -> (status: Int32, errors: String)? {
        let errorsURL = directory.appendingPathComponent("stderr.txt")
        try Data().write(to: errorsURL)
        let errors = try FileHandle(forWritingTo: errorsURL)
        defer { try? errors.close() }
        let process = Process()
        process.executableURL = Self.binary("otlp-metrickit")
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        guard exited.wait(timeout: .now() + .seconds(limit)) == .success else {
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
            return nil
        }
        return (process.terminationStatus, try String(contentsOf: errorsURL, encoding: .utf8))
    }

    @Test(
        "a payload directory's *.json FIFO, device or directory is skipped with a warning, never opened; the other payloads are converted; exit 1"
    )
    func directoryEntriesThatAreNotRegularFiles() throws {
        let directory = OTLPTemporaryDirectory.unusedPath("metrickit-fifo")
        let payloads = directory.appendingPathComponent("d")
        try FileManager.default.createDirectory(at: payloads, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = payloads.appendingPathComponent("a.json").path
        #expect(mkfifo(fifo, 0o600) == 0, "mkfifo: errno \(errno)")
        try FileManager.default.copyItem(
            at: MetricKitConverterTests.samples.appendingPathComponent("metric-full.json"), to: payloads.appendingPathComponent("b.json"))
        try FileManager.default.createDirectory(at: payloads.appendingPathComponent("c.json"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: payloads.appendingPathComponent("d.json").path, withDestinationPath: "/dev/null")

        // The listing: only the regular file is to be read.
        let listing = try OTLPMetricKitCommand.directoryPayloads(payloads.path)
        #expect(listing.files == [payloads.appendingPathComponent("b.json").path])
        #expect(listing.skipped.map(\.path) == ["a.json", "c.json", "d.json"].map { payloads.appendingPathComponent($0).path })
        #expect(listing.skipped.map(\.type) == ["a FIFO", "a directory", "a character device"])

        // The command: finishes although no one writes to the FIFO.
        let traces = directory.appendingPathComponent("t.bin").path
        let result = try #require(
            try Self.runBounded([payloads.path, "--traces", traces], in: directory), "otlp-metrickit hung on a FIFO in a payload directory")
        #expect(result.status == 1, "\(result.errors)")
        #expect(result.errors.contains("\(fifo): warning: skipped, not a regular file (a FIFO)"), "\(result.errors)")
        #expect(result.errors.contains("c.json: warning: skipped, not a regular file (a directory)"), "\(result.errors)")
        #expect(result.errors.contains("d.json: warning: skipped, not a regular file (a character device)"), "\(result.errors)")
        #expect(
            result.errors.contains("1 payloads: 1 metric, 0 diagnostic, 0 failed, 3 skipped (not regular files); wrote 4 spans"),
            "\(result.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: traces)).count > 0)
    }

    @Test("usage errors exit 64")
    func usage() throws {
        #expect(try Self.run(Self.binary("otlp-metrickit"), ["x.json"]).status == 64)
        #expect(try Self.run(Self.binary("otlp-metrickit"), ["x.json", "--traces", "t", "--framing", "none"]).status == 64)
    }

    @Test(
        "--traces and --logs naming one file or stream is a usage error",
        arguments: [
            ["-", "-"], ["/dev/stdout", "-"], ["-", "/dev/stdout"], ["SAME", "SAME"], ["LINK", "SAME"], ["SAME", "DIR/../SAME"],
        ])
    func sameOutput(pair: [String]) throws {
        let directory = OTLPTemporaryDirectory.unusedPath("metrickit-same")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("DIR"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data().write(to: directory.appendingPathComponent("SAME"))
        try FileManager.default.createSymbolicLink(
            at: directory.appendingPathComponent("LINK"), withDestinationURL: directory.appendingPathComponent("SAME"))
        let sample = MetricKitConverterTests.samples.appendingPathComponent("metric-full.json").path
        let outputs = pair.map { $0.hasPrefix("/") || $0 == "-" ? $0 : directory.appendingPathComponent($0).path }
        let result = try Self.run(Self.binary("otlp-metrickit"), [sample, "--traces", outputs[0], "--logs", outputs[1]])
        #expect(result.status == 64, "\(pair)")
        #expect(result.errors.contains("name the same output"), "\(result.errors)")
        #expect(result.output.isEmpty, "nothing is written")
        let distinct = try Self.run(
            Self.binary("otlp-metrickit"), [sample, "--traces", "-", "--logs", directory.appendingPathComponent("logs.bin").path])
        #expect(distinct.status == 0, "\(distinct.errors)")
    }

    @Test(
        "options out of range are usage errors",
        arguments: [
            ["--assumed-utc-offset", "64801"], ["--assumed-utc-offset=-64801"], ["--assumed-utc-offset", "9223372036854775807"],
            ["--assumed-utc-offset=-9223372036854775808"], ["--max-payload-bytes", "9223372036854775807"], ["--max-payload-bytes", "0"],
            ["--max-payload-nesting-depth", "0"], ["--max-payload-nesting-depth", "8193"],
        ])
    func ranges(arguments: [String]) throws {
        let sample = MetricKitConverterTests.samples.appendingPathComponent("metric-full.json").path
        let result = try Self.run(Self.binary("otlp-metrickit"), [sample, "--traces", "/dev/null"] + arguments)
        #expect(result.status == 64, "\(arguments): \(result.errors)")
        let edge = try Self.run(
            Self.binary("otlp-metrickit"),
            [sample, "--traces", "/dev/null", "--assumed-utc-offset=-64800", "--max-payload-nesting-depth", "8192"])
        #expect(edge.status == 0, "\(edge.errors)")
    }

    @Test(
        "one bad payload among several: the others are converted, the bad one named, exit 1, gzip outputs complete and valid",
        arguments: ["u32be", "jsonl"])
    func oneBadAmongSeveral(framing: String) throws {
        let directory = OTLPTemporaryDirectory.unusedPath("metrickit-bad")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("in"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let samples = MetricKitConverterTests.samples
        try FileManager.default.copyItem(
            at: samples.appendingPathComponent("metric-full.json"), to: directory.appendingPathComponent("in/a.json"))
        try FileManager.default.copyItem(
            at: samples.appendingPathComponent("diagnostic-all-kinds.json"), to: directory.appendingPathComponent("in/d.json"))
        let overflow =
            #"{"timeStampBegin": "2025-06-02 00:00:00", "applicationLaunchMetrics": {"histogrammedResumeTime": {"histogramValue": {"#
            + #""0": {"bucketCount": 9223372036854775807, "bucketStart": "1 ms", "bucketEnd": "2 ms"}, "1": {"bucketCount": 1, "bucketStart": "2 ms", "bucketEnd": "3 ms"}}}}}"#
        try overflow.write(to: directory.appendingPathComponent("in/b.json"), atomically: true, encoding: .utf8)
        try MetricKitHostileInputTests.crashPayload(frames: 1_000).write(
            to: directory.appendingPathComponent("in/c.json"), atomically: true, encoding: .utf8)
        try #"{"timeStampBegin": "2025-06-02 00:00:00", "metaData": {"pid": 1.5, "nested": {"a": 1}}}"#
            .write(to: directory.appendingPathComponent("in/e.json"), atomically: true, encoding: .utf8)
        let traces = directory.appendingPathComponent("traces.\(framing).gz").path
        let logs = directory.appendingPathComponent("logs.\(framing).gz").path
        let result = try Self.run(
            Self.binary("otlp-metrickit"),
            [
                directory.appendingPathComponent("in").path, "--traces", traces, "--logs", logs, "--gzip", "--framing", framing,
            ])
        #expect(result.status == 1)
        #expect(
            result.errors.contains("b.json: $.applicationLaunchMetrics.histogrammedResumeTime: the bucket counts add up to more than"),
            "\(result.errors)")
        #expect(
            result.errors.contains("e.json: warning: $.metaData.nested: a nested value is not passed through, skipped"), "\(result.errors)")
        #expect(
            result.errors.contains("5 payloads: 2 metric, 2 diagnostic, 1 failed; wrote 7 spans, 6 log records; 1 values skipped"),
            "\(result.errors)")
        for file in [traces, logs] {
            let validated = try Self.run(Self.binary("otlp-dump"), ["validate", file])
            #expect(validated.status == 0, "\(file): \(validated.errors)")
            let gunzip = try Self.run(URL(fileURLWithPath: "/usr/bin/env"), ["gzip", "-t", file])
            #expect(gunzip.status == 0, "\(file): \(gunzip.errors)")
        }
        if framing == "u32be" {
            let decoded = try OTLPProcess.referenceDecode(logs, framing: "u32be", signal: "logs")
            #expect(decoded.status == 0, "\(decoded.errors)")
            #expect(decoded.output.split(separator: "\n").count == 2)  // the two diagnostic payloads
        }
    }

    @Test(
        "a diagnostic payload with no diagnostics writes no record: the logs file stays empty and valid (no resource-only request that names no signal)"
    )
    func emptyDiagnosticPayload() throws {
        let directory = try OTLPTemporaryDirectory.make("metrickit-empty")
        defer { try? FileManager.default.removeItem(at: directory) }
        let payload = directory.appendingPathComponent("empty.json")
        try #"{"timeStampBegin":"2025-06-02 00:00:00","timeStampEnd":"2025-06-03 00:00:00","crashDiagnostics":[]}"#.write(
            to: payload, atomically: true, encoding: .utf8)
        let logs = directory.appendingPathComponent("diagnostics.u32be.bin").path
        let traces = directory.appendingPathComponent("metrickit.u32be.bin").path
        let result = try Self.run(Self.binary("otlp-metrickit"), [payload.path, "--traces", traces, "--logs", logs])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.errors.contains("1 diagnostic") && result.errors.contains("0 log records"), "\(result.errors)")
        let validated = try Self.run(Self.binary("otlp-dump"), ["validate", logs, traces])
        #expect(validated.status == 0, "\(validated.output) \(validated.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: logs)).isEmpty)
    }

    @Test("a payload too large for one record is written as several, each one readers accept")
    func splitRecords() throws {
        let directory = try OTLPTemporaryDirectory.make("metrickit-split")
        defer { try? FileManager.default.removeItem(at: directory) }
        let signposts = Array(repeating: #"{"signpostName":"s"}"#, count: 200_000).joined(separator: ",")
        let payload = directory.appendingPathComponent("many.json")
        try #"{"timeStampBegin":"2025-06-02 00:00:00","signpostMetrics":[\#(signposts)]}"#.write(
            to: payload, atomically: true, encoding: .utf8)
        let traces = directory.appendingPathComponent("traces.bin").path
        let result = try Self.run(Self.binary("otlp-metrickit"), [payload.path, "--traces", traces])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.errors.contains("wrote 200001 spans"), "\(result.errors)")
        let validated = try Self.run(Self.binary("otlp-dump"), ["validate", traces])
        #expect(validated.status == 0, "\(validated.errors)")
        // Several records (how many follows from the readers' default record size), every span in one of them.
        let records =
            validated.output.split(separator: " ").firstIndex(of: "records,").map {
                Int(validated.output.split(separator: " ")[$0 - 1]) ?? 0
            } ?? 0
        #expect(records >= 2 && validated.output.contains("records, 200001 spans"), "\(validated.output)")
    }
}
