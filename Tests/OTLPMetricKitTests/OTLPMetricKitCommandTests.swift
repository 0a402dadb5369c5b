import Foundation
import OTLPTesting
import Testing

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

    @Test("converts every sample; a broken payload is named with its JSON path and sets the exit status; the reference decoder reads the output")
    func samples() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("metrickit-\(UUID().uuidString)")
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
        let result = try Self.run(Self.binary("otlp-metrickit"), [directory.appendingPathComponent("in").path, "--traces", traces, "--logs", logs, "--gzip"])
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

    @Test("a payload over --max-payload-bytes fails by name without being read whole; /dev/zero does not hang")
    func payloadLimit() throws {
        let sample = MetricKitConverterTests.samples.appendingPathComponent("metric-full.json").path
        let size = try #require(try FileManager.default.attributesOfItem(atPath: sample)[.size] as? Int)
        let exact = try Self.run(Self.binary("otlp-metrickit"), [sample, "--traces", "/dev/null", "--max-payload-bytes", "\(size)"])
        #expect(exact.status == 0, "\(exact.errors)")
        let over = try Self.run(Self.binary("otlp-metrickit"), [sample, "/dev/zero", "--traces", "/dev/null", "--max-payload-bytes", "\(size - 1)"])
        #expect(over.status == 1)
        #expect(over.errors.contains("\(sample): payload is larger than \(size - 1) bytes"), "\(over.errors)")
        #expect(over.errors.contains("/dev/zero: payload is larger than"), "\(over.errors)")
        #expect(over.errors.contains("2 payloads: 0 metric, 0 diagnostic, 2 failed"), "\(over.errors)")
    }

    @Test("usage errors exit 64")
    func usage() throws {
        #expect(try Self.run(Self.binary("otlp-metrickit"), ["x.json"]).status == 64)
        #expect(try Self.run(Self.binary("otlp-metrickit"), ["x.json", "--traces", "t", "--framing", "none"]).status == 64)
    }
}
