import Foundation
import OTLPTestSupport

/// Runs the built `otlp-dump` binary and captures its output.
struct OTLPDumpRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var stdoutBytes: Data
    }

    static let binary = OTLPProcess.executable("otlp-dump")

    static let vectors = OTLPProcess.repository.appendingPathComponent("Tests/Fixtures/vectors")

    static func run(_ arguments: [String], stdin: Data? = nil) throws -> Result {
        let result = try OTLPProcess.run(binary, arguments, stdin: stdin)
        return Result(status: result.status, stdout: result.output, stderr: result.errors, stdoutBytes: result.outputData)
    }
}
