public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The scripted OTLP/HTTP server of the tests (`Tests/Support/collector/otlp-test-collector.py`), on
/// loopback, started by the test and stopped by ``stop()`` (or when released).
public final class OTLPTestCollector: @unchecked Sendable {
    /// One scripted answer.
    public struct Answer: Sendable {
        /// The HTTP status.
        public var status: Int
        /// Headers of the answer.
        public var headers: [String: String]
        /// The body of the answer.
        public var body: [UInt8]
        /// Read the request and never answer.
        public var hang: Bool

        /// An answer with `status`, `headers` and `body`.
        public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
            self.status = status
            self.headers = headers
            self.body = body
            self.hang = false
        }

        /// No answer at all: the connection stays open.
        public static let hang: Answer = {
            var answer = Answer(status: 0)
            answer.hang = true
            return answer
        }()
    }

    /// One request the server received.
    public struct Request: Sendable {
        /// The request path (`/v1/traces`).
        public var path: String
        /// The headers, names in lowercase.
        public var headers: [String: String]
        /// The body, as sent.
        public var body: [UInt8]
    }

    /// The port on 127.0.0.1.
    public let port: Int
    /// Where the server records requests.
    public let directory: URL
    private let process: Process

    /// The script.
    public static let script = OTLPProcess.repository.appendingPathComponent("Tests/Support/collector/otlp-test-collector.py")

    /// Starts a server that gives `answers` in order, then 200 to everything.
    public init(answers: [Answer] = []) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("otlp-test-collector-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var arguments = [Self.script.path, "serve", directory.path]
        if !answers.isEmpty {
            let scriptFile = directory.appendingPathComponent("script.json")
            let json: [[String: Any]] = answers.map { answer in
                answer.hang
                    ? ["hang": true]
                    : ["status": answer.status, "headers": answer.headers, "body": Data(answer.body).base64EncodedString()]
            }
            try JSONSerialization.data(withJSONObject: json).write(to: scriptFile)
            arguments += ["--script", scriptFile.path]
        }
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // The first line is "listening PORT".
        var line: [UInt8] = []
        while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != UInt8(ascii: "\n") { line.append(byte) }
        guard let portText = String(decoding: line, as: UTF8.self).split(separator: " ").last, let port = Int(portText) else {
            process.terminate()
            throw CocoaError(
                .fileReadCorruptFile,
                userInfo: [NSLocalizedDescriptionKey: "the test collector did not start: \(String(decoding: line, as: UTF8.self))"])
        }
        self.port = port
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT`.
    public var endpoint: String { "http://127.0.0.1:\(port)" }

    /// The requests received so far, in order.
    public var requests: [Request] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".json") && $0 != "script.json" }.sorted()
        return names.compactMap { name in
            guard let data = try? Data(contentsOf: directory.appendingPathComponent(name)),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return nil }
            return Request(
                path: object["path"] as? String ?? "", headers: object["headers"] as? [String: String] ?? [:],
                body: Array(Data(base64Encoded: object["body"] as? String ?? "") ?? Data()))
        }
    }

    /// The spans and log records of the requests answered 2xx, decoded by the reference package, one
    /// canonical JSON line each (see the script).
    public var items: [String] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("items.jsonl"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// The items of an OTLP file (`framing` u32be, varint, jsonl or none; gzip or not), decoded by the
    /// reference package, in the same canonical form.
    public static func canonicalItems(ofFile path: String, framing: String = "u32be", signal: String) throws -> [String] {
        let result = try OTLPProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", script.path, "canonical", path, framing, signal])
        guard result.status == 0 else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "canonical: \(result.errors)"])
        }
        return result.output.split(separator: "\n").map(String.init)
    }

    /// Stops the server.
    public func stop() {
        Self.stop(process, graceSeconds: 10)
    }

    /// Sends SIGTERM to `process` and waits for it to exit; after `graceSeconds`, SIGKILL.
    static func stop(_ process: Process, graceSeconds: Double) {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date(timeIntervalSinceNow: graceSeconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }  // waiting for another process to exit
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Removes the recorded requests (after ``stop()``).
    public func removeRecords() {
        try? FileManager.default.removeItem(at: directory)
    }
}
