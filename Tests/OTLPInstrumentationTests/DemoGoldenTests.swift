import Foundation
import OTLPTestSupport
import Testing

/// The demo's deterministic output, decoded by the reference opentelemetry-proto package, equals the
/// golden files (see Fixtures/README.md).
@Suite("Demo golden files")
struct DemoGoldenTests {
    static let repository = OTLPProcess.repository
    static let demo = OTLPProcess.executable("otlpwire-demo")

    static func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let result = try OTLPProcess.run(executable, arguments)
        return (result.status, result.output, result.errors)
    }

    @Test("otlpwire-demo --deterministic: byte-stable, and equal to the golden files through the reference decoder")
    func golden() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("demo-golden-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try Self.run(Self.demo, ["--deterministic", directory.appendingPathComponent("a").path])
        #expect(first.status == 0, "\(first.errors)")
        let second = try Self.run(Self.demo, ["--deterministic", directory.appendingPathComponent("b").path])
        #expect(second.status == 0)
        for file in ["traces.u32be.bin", "logs.u32be.bin.gz"] {
            #expect(try Data(contentsOf: directory.appendingPathComponent("a/\(file)")) == Data(contentsOf: directory.appendingPathComponent("b/\(file)")), "\(file) is not byte-stable")
        }
        let python = URL(fileURLWithPath: "/usr/bin/env")
        let script = Self.repository.appendingPathComponent("scripts/reference-decode.py").path
        for (file, signal) in [("traces.u32be.bin", "traces"), ("logs.u32be.bin.gz", "logs")] {
            let decoded = try Self.run(python, ["python3", script, directory.appendingPathComponent("a/\(file)").path, "u32be", signal])
            #expect(decoded.status == 0, "reference decoder: \(decoded.errors)")
            let golden = try String(contentsOf: Self.repository.appendingPathComponent("Tests/OTLPInstrumentationTests/Fixtures/demo-deterministic.\(signal).jsonl"), encoding: .utf8)
            #expect(decoded.output == golden, "\(signal) differ from the golden file (see Fixtures/README.md to regenerate)")
        }
    }
}
