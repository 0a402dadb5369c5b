public import Foundation

/// The collector rotel (PyPI `rotel`, binary `rotel-agent`, installed by `make deps`), receiving OTLP/HTTP on
/// loopback and forwarding everything it accepts to an ``OTLPTestCollector``. ``stop()`` ends it with
/// SIGTERM, on which it exports what it holds before exiting, so the forwarded items are complete then.
public final class OTLPRotel: @unchecked Sendable {
    /// The OTLP/HTTP port on 127.0.0.1.
    public let httpPort: Int
    private let process: Process
    private let directory: URL

    /// The `rotel-agent` binary inside the installed Python package, if any.
    public static var binary: String? {
        let result = try? OTLPProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", "-c", "import os, rotel; print(os.path.join(os.path.dirname(rotel.__file__), 'rotel-agent'))"])
        guard let result, result.status == 0 else { return nil }
        let path = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// Starts rotel forwarding to `collector` (OTLP/HTTP, protobuf), and waits until its port accepts.
    public init(forwardingTo collector: OTLPTestCollector) throws {
        guard let binary = Self.binary else {
            throw CocoaError(
                .fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "rotel-agent not found: run make deps (pip install rotel==0.0.1a15)"]
            )
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("otlp-rotel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let ports = try OTLPFreePort.reserve(2)
        httpPort = ports[0]
        process = Process()
        // Through the test collector script's `exec`, which unblocks the signals this process's thread may
        // have blocked (a child inherits them): rotel must receive SIGTERM to export what it holds.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", OTLPTestCollector.script.path, "exec", binary, "start", "--otlp-http-endpoint", "127.0.0.1:\(ports[0])",
            "--otlp-grpc-endpoint", "127.0.0.1:\(ports[1])",
            "--exporter", "otlp", "--otlp-exporter-endpoint", collector.endpoint, "--otlp-exporter-protocol", "http",
            "--pid-file", directory.appendingPathComponent("rotel.pid").path,
        ]
        let log = directory.appendingPathComponent("rotel.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        guard OTLPFreePort.waitUntilAccepting(port: httpPort, whileRunning: process) else {
            process.terminate()
            throw CocoaError(
                .fileReadUnknown,
                userInfo: [NSLocalizedDescriptionKey: "rotel did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")"])
        }
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT`.
    public var endpoint: String { "http://127.0.0.1:\(httpPort)" }

    /// Stops rotel (SIGTERM: it exports what it holds first) and waits for it to exit.
    public func stop() {
        OTLPTestCollector.stop(process, graceSeconds: 20)
        try? FileManager.default.removeItem(at: directory)
    }
}
