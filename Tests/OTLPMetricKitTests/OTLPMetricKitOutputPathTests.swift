import Foundation
import OTLPTestSupport
import Testing

/// `otlp-metrickit` refuses an output (`--traces`, `--logs`, or standard output) that is a payload it reads,
/// or the other output, by device and inode: exit 64 naming both, nothing truncated.
@Suite("otlp-metrickit output paths")
struct OTLPMetricKitOutputPathTests {
    static let binary = OTLPProcess.executable("otlp-metrickit")

    @Test("an output over a payload file, a payload inside a directory, through links or a redirection, or over the other output: exit 64")
    func outputsOverInputs() throws {
        let directory = OTLPTemporaryDirectory.unusedPath("metrickit-paths")
        let payloads = directory.appendingPathComponent("payloads")
        try FileManager.default.createDirectory(at: payloads, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sample = try Data(contentsOf: MetricKitConverterTests.samples.appendingPathComponent("metric-full.json"))
        let payload = payloads.appendingPathComponent("a.json").path
        try sample.write(to: URL(fileURLWithPath: payload))
        let symbolicLink = directory.appendingPathComponent("link.bin").path
        try FileManager.default.createSymbolicLink(atPath: symbolicLink, withDestinationPath: payload)
        let traces = directory.appendingPathComponent("traces.bin").path
        try Data().write(to: URL(fileURLWithPath: traces))
        let tracesLink = directory.appendingPathComponent("traces-link.bin").path
        try FileManager.default.linkItem(atPath: traces, toPath: tracesLink)

        let cases: [([String], String)] = [
            ([payload, "--traces", payload], "--traces \(payload) is the same file as payload \(payload)"),
            ([payloads.path, "--logs", payload], "--logs \(payload) is the same file as payload \(payloads.path)/a.json"),
            ([payloads.path, "--traces", symbolicLink], "--traces \(symbolicLink) is the same file as payload"),
            ([payload, "--traces", traces, "--logs", tracesLink], "--traces and --logs name the same output (\(traces), \(tracesLink))"),
        ]
        for (arguments, message) in cases {
            let result = try OTLPProcess.run(Self.binary, arguments)
            #expect(result.status == 64, "\(arguments): \(result.errors)")
            #expect(result.errors.contains(message), "\(result.errors)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: payload)) == sample)
        }
        let redirected = try OTLPProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", #"exec "$0" "$1" --traces - >> "$2""#, Self.binary.path, payloads.path, payload])
        #expect(
            redirected.status == 64 && redirected.errors.contains("--traces <stdout> is the same file as payload"), "\(redirected.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: payload)) == sample)
        // Distinct files are fine, even next to the payloads (a name not ending in .json is not read).
        let fine = try OTLPProcess.run(Self.binary, [payloads.path, "--traces", payloads.appendingPathComponent("out.bin").path])
        #expect(fine.status == 0, "\(fine.errors)")
    }

    @Test("an output that cannot be written (standard output or a file on /dev/full): exit 2 with the errno text")
    func outputFull() throws {
        let sample = MetricKitConverterTests.samples.appendingPathComponent("diagnostic-all-kinds.json").path
        let toStandardOutput = try OTLPProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", #"exec "$0" "$1" --traces - > /dev/full"#, Self.binary.path, sample])
        #expect(toStandardOutput.status == 2 && toStandardOutput.errors.contains("No space left on device"), "\(toStandardOutput.errors)")
        let toFile = try OTLPProcess.run(Self.binary, [sample, "--logs", "/dev/full", "--gzip"])
        #expect(toFile.status == 2 && toFile.errors.contains("No space left on device"), "\(toFile.errors)")
    }

    @Test(
        "an output that cannot be opened, and --help on /dev/full, are exit 2 naming the reason; a reader that goes away stops the output quietly"
    )
    func outputUnopenableAndHelp() throws {
        let sample = MetricKitConverterTests.samples.appendingPathComponent("metric-full.json").path
        let unopenable = try OTLPProcess.run(Self.binary, [sample, "--traces", "/nonexistent-directory/traces.bin"])
        #expect(
            unopenable.status == 2 && unopenable.errors.contains("cannot open /nonexistent-directory/traces.bin"), "\(unopenable.errors)")
        let help = try OTLPProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", #"exec "$0" --help > /dev/full"#, Self.binary.path])
        #expect(help.status == 2 && help.errors == "otlp-metrickit: <stdout>: write failed: No space left on device\n", "\(help.errors)")
        let closed = try OTLPProcess.run(
            URL(fileURLWithPath: "/bin/bash"),
            ["-c", #"set -o pipefail; "$0" "$1" --traces - --framing jsonl | true"#, Self.binary.path, sample])
        #expect(closed.status == 0, "\(closed.errors)")
    }
}
