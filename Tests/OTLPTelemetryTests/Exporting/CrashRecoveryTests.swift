import Foundation
import OTLPTestSupport
import Testing
import OTLPWire
@testable import OTLPTelemetry

/// A child process writes telemetry and is killed with SIGKILL mid-stream; every complete record it left
/// must be readable.
@Suite("Crash recovery")
struct CrashRecoveryTests {
    static let writer = OTLPProcess.executable("otlp-crash-writer")

    @Test(
        "SIGKILL mid-stream: every complete record stays readable",
        arguments: [("u32be", "plain"), ("u32be", "gzip"), ("varint", "gzip"), ("jsonl", "plain")])
    func killed(framing: String, compression: String) throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("traces.bin").path
        let process = Process()
        process.executableURL = Self.writer
        process.arguments = [path, framing, compression]
        let output = Pipe()
        process.standardOutput = output
        try process.run()

        // Read progress lines until the child has flushed at least 3,000 spans, then kill it at once.
        var flushed = 0
        var pending = Data()
        while flushed < 3_000 {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                if line.hasPrefix("flushed "), let count = Int(line.dropFirst(8)) { flushed = count }
            }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(flushed >= 3_000)

        var recovered = 0
        var records = 0
        var failure: OTLPReadError?
        do {
            let reader = try OTLPRecordReader(path: path, options: OTLPReaderOptions(signal: .traces))
            while let record = try reader.next() {
                records += 1
                recovered += record.payload.itemCount
            }
        } catch {
            failure = error
        }
        // Everything reported flushed is there; a kill can at most cut the very end of the file.
        #expect(recovered >= flushed, "recovered \(recovered) spans in \(records) records; the child had flushed \(flushed)")
        if let failure {
            #expect([.truncatedRecord, .truncatedLengthPrefix, .gzipTruncated].contains(failure.code), "\(failure)")
        }
        print(
            "crash recovery \(framing)/\(compression): \(recovered) spans in \(records) records recovered (\(flushed) reported flushed)\(failure.map { "; then \($0.code.description)" } ?? "")"
        )
    }
}
