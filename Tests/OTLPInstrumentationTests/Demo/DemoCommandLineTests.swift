import Foundation
import OTLPTestSupport
@testable import OTLPTelemetry
import Testing

/// `otlpwire-demo`, run as the real binary: arguments are parsed (unknown ones are usage errors that create
/// nothing), and every failure names what failed and exits non-zero.
@Suite("otlpwire-demo command line")
struct DemoCommandLineTests {
    static let demo = OTLPProcess.executable("otlpwire-demo")

    /// A fresh, empty working directory.
    static func workingDirectory() throws -> URL {
        let url = try OTLPTemporaryDirectory.make("demo-cli")
        return url
    }

    /// Runs the demo in `directory` (so that anything it creates by mistake lands there).
    static func run(_ arguments: [String], in directory: URL) throws -> (status: Int32, output: String, errors: String) {
        let result = try OTLPProcess.run(demo, arguments, in: directory)
        return (result.status, result.output, result.errors)
    }

    static func contents(_ directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    @Test(
        "--help prints the usage with every option and creates nothing",
        arguments: [["--help"], ["-h"], ["--deterministic", "--help", "out"]])
    func help(arguments: [String]) throws {
        let directory = try Self.workingDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try Self.run(arguments, in: directory)
        #expect(result.status == 0)
        for text in ["USAGE: otlpwire-demo", "--deterministic", "--config <file>", "<output-directory>", "Exit status"] {
            #expect(result.output.contains(text), "help lacks \(text)")
        }
        #expect(try Self.contents(directory).isEmpty)
    }

    @Test(
        "an unknown option or a second directory is a usage error (64) that creates nothing",
        arguments: [["--bogus"], ["--deterministic/"], ["-x", "out"], ["out", "other"], ["--config"]])
    func usageErrors(arguments: [String]) throws {
        let directory = try Self.workingDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try Self.run(arguments, in: directory)
        #expect(result.status == 64, "\(result.errors)")
        #expect(result.errors.contains("Usage: otlpwire-demo"))
        #expect(try Self.contents(directory).isEmpty)
    }

    @Test("an output directory that cannot be created: the path and the system's reason, exit 2, no trap")
    func uncreatableDirectory() throws {
        let directory = try Self.workingDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Under a regular file (tests run as root, so permissions would not stop it).
        try Data("x".utf8).write(to: directory.appendingPathComponent("file"))
        let result = try Self.run(["--deterministic", "file/sub"], in: directory)
        #expect(result.status == 2)
        #expect(result.errors.hasPrefix("otlpwire-demo: cannot create output directory file/sub: "), "\(result.errors)")
        #expect(result.errors.contains("not a directory"))
        #expect(!result.errors.contains("Error raised at top level"))

        let proc = try Self.run(["--deterministic", "/proc/otlpwire-demo-\(UUID().uuidString)/out"], in: directory)
        #expect(proc.status == 2)
        #expect(proc.errors.contains("cannot create output directory /proc/otlpwire-demo-"), "\(proc.errors)")
        #expect(proc.errors.contains(String(cString: strerror(ENOENT))) || proc.errors.contains(String(cString: strerror(EACCES))))
        #expect(try Self.contents(directory) == ["file"])
    }

    /// Regression (hostile review): a second demo on the same directory removed the first one's files before it
    /// found the outputs locked, and the first then reported files that were gone.
    @Test("a directory another demo is writing: refused before anything is removed, exit 2")
    func directoryInUse() throws {
        let directory = try Self.workingDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let traces = directory.appendingPathComponent("traces.u32be.bin")
        try Data("the other demo's file".utf8).write(to: traces)
        // What a running demo holds.
        let held = try OTLPOutputLock(outputPath: directory.appendingPathComponent("otlpwire-demo").path)
        let result = try Self.run(["--deterministic", directory.path], in: directory)
        withExtendedLifetime(held) {}
        #expect(result.status == 2)
        #expect(result.errors.contains("could not write the telemetry under"), "\(result.errors)")
        #expect(try Data(contentsOf: traces) == Data("the other demo's file".utf8))
    }

    @Test("a directory where the files cannot be written: each failed write is reported, exit 2, nothing claimed written")
    func unwritableDirectory() throws {
        let directory = try Self.workingDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try Self.run(["--deterministic", "/proc/self"], in: directory)
        #expect(result.status == 2)
        // The first thing written there is the lock that keeps a second demo off the directory.
        #expect(result.errors.contains("/proc/self/.otlpwire-demo.lock"), "\(result.errors)")
        #expect(result.errors.contains("otlpwire-demo: could not write the telemetry under /proc/self"))
        #expect(!result.output.contains("wrote"))
    }

    @Test("an output file that cannot be replaced (a folder in its place) names it, exit 2")
    func unreplaceableFile() throws {
        let directory = try Self.workingDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("out/traces.u32be.bin/keep"), withIntermediateDirectories: true)
        let result = try Self.run(["--deterministic", "out"], in: directory)
        #expect(result.status == 2)
        #expect(result.errors.contains("otlpwire-demo: cannot replace out/traces.u32be.bin: "), "\(result.errors)")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("out/traces.u32be.bin/keep").path))
    }

    @Test("--config: an unreadable file and an invalid value are named, exit 2 and 1, and nothing is created")
    func badConfiguration() throws {
        let directory = try Self.workingDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = try Self.run(["--config", "missing.json", "out"], in: directory)
        #expect(missing.status == 2)
        #expect(missing.errors == "otlpwire-demo: --config: cannot open missing.json: \(String(cString: strerror(ENOENT)))\n")
        try Data(#"{"batch": {"exportTimeoutSeconds": 1e-300}}"#.utf8).write(to: directory.appendingPathComponent("bad.json"))
        let invalid = try Self.run(["--config", "bad.json", "out"], in: directory)
        #expect(invalid.status == 1)
        #expect(invalid.errors.contains("bad.json: configuration key batch.exportTimeoutSeconds: must be between"), "\(invalid.errors)")
        #expect(try Self.contents(directory) == ["bad.json"])
    }

    @Test("a good run writes both files into a new nested directory and says so")
    func goodRun() throws {
        let directory = try Self.workingDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try Self.run(["--deterministic", "a/b/c"], in: directory)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.hasPrefix("wrote "))
        #expect(try Self.contents(directory.appendingPathComponent("a/b/c")) == ["logs.u32be.bin.gz", "traces.u32be.bin"])
    }

    /// Regression: the replay's sessions went on in memory, each simulated process starting a session of its
    /// own, with exit 0 and nothing said.
    @Test("a temporary directory where the replay's session file cannot be written: exit 2, and the message says where and why")
    func sessionFileUnwritable() throws {
        let directory = try Self.workingDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data().write(to: directory.appendingPathComponent("not-a-directory"))
        let result = try OTLPProcess.run(
            Self.demo, ["--deterministic", "out"], in: directory,
            environment: ["TMPDIR": directory.appendingPathComponent("not-a-directory").path])
        #expect(result.status == 2)
        #expect(result.errors.hasPrefix("otlpwire-demo: the replayed app's session could not be kept in "), "\(result.errors)")
        #expect(result.errors.contains(String(cString: strerror(ENOTDIR))), "\(result.errors)")
    }

    @Test("OTEL_EXPORTER_OTLP_ENDPOINT: the same telemetry is written to the files and delivered to the collector")
    func deliversToCollector() throws {
        let directory = try Self.workingDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let result = try OTLPProcess.run(
            Self.demo, ["--deterministic", "out"], in: directory, environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint])
        collector.stop()
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("delivered 141 spans and 10 log records to the collector"))
        let written =
            try OTLPTestCollector.canonicalItems(ofFile: directory.appendingPathComponent("out/traces.u32be.bin").path, signal: "traces")
            + OTLPTestCollector.canonicalItems(ofFile: directory.appendingPathComponent("out/logs.u32be.bin.gz").path, signal: "logs")
        #expect(written.count == 151)
        #expect(collector.items.sorted() == written.sorted())
    }

    @Test("a collector nobody answers for: the files are written, the loss is reported, exit 1")
    func collectorDown() throws {
        let directory = try Self.workingDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try OTLPFreePort.unused()
        let result = try OTLPProcess.run(
            Self.demo, ["--deterministic", "out"], in: directory,
            environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(port)", "OTEL_EXPORTER_OTLP_TIMEOUT": "500"])
        #expect(result.status == 1)
        #expect(result.output.contains("wrote 141 spans"))
        #expect(result.errors.contains("telemetry was not delivered to the collector"))
    }

    @Test("its status line or --help on /dev/full: exit 2 with the errno text")
    func standardOutputFull() throws {
        let directory = try Self.workingDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for arguments in [["--help"], ["--deterministic", directory.appendingPathComponent("out").path]] {
            let result = try OTLPProcess.run(
                URL(fileURLWithPath: "/bin/sh"), ["-c", #"exec "$0" "$@" > /dev/full"#, Self.demo.path] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.errors)")
            #expect(result.errors.hasSuffix("otlpwire-demo: <stdout>: write failed: No space left on device\n"), "\(result.errors)")
        }
    }
}
