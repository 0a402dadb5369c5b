public import Foundation

/// Runs the package's executables (built beside the test bundle) and its scripts from this repository's
/// tests, capturing their output. Test support only: not part of any product.
public enum OTLPProcess {
    /// The result of a finished process.
    public struct Result: Sendable {
        /// The exit status (or the signal number, if a signal ended the process).
        public var status: Int32
        /// Everything written to standard output, decoded as UTF-8.
        public var output: String
        /// Everything written to standard error, decoded as UTF-8.
        public var errors: String
        /// Everything written to standard output, as bytes.
        public var outputData: Data
    }

    /// The repository root (this file is `Tests/Support/OTLPTestSupport/OTLPProcess.swift`).
    public static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A built executable of this package: looked for beside the running test bundle, then in `.build/debug`.
    public static func executable(_ name: String) -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return repository.appendingPathComponent(".build/debug/\(name)")
    }

    /// Runs `executable` with `arguments` in `directory` (default: this process's), feeding `stdin` (or
    /// nothing), with `environment` added to this process's environment, and waits for it.
    public static func run(
        _ executable: URL, _ arguments: [String], stdin: Data? = nil, in directory: URL? = nil, environment: [String: String] = [:]
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        if let stdin {
            try input.fileHandleForWriting.write(contentsOf: stdin)
            try input.fileHandleForWriting.close()
        }
        // Read stderr on another thread so neither pipe can fill up and block the child.
        nonisolated(unsafe) var errorData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errorData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outputData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
            errors: String(decoding: errorData, as: UTF8.self), outputData: outputData)
    }

    /// Runs `scripts/reference-decode.py` (the reference opentelemetry-proto package) on a file.
    public static func referenceDecode(_ path: String, framing: String, signal: String) throws -> Result {
        try run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", repository.appendingPathComponent("scripts/reference-decode.py").path, path, framing, signal])
    }
}
