import ArgumentParser
import Foundation
import OTLPMetricKit
import OTLPWire

#if canImport(Glibc)
import Glibc
#endif

/// Converts MetricKit payload JSON files (what apps upload from `MXMetricPayload.jsonRepresentation()` and
/// `MXDiagnosticPayload.jsonRepresentation()`) into OTLP files.
@main
struct OTLPMetricKitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "otlp-metrickit",
        abstract: "Convert MetricKit payload JSON into OTLP: metric payloads to spans, diagnostics to log records.",
        discussion: """
            PAYLOAD arguments are files, or directories whose *.json files are read (sorted by name). A metric \
            payload becomes an MXMetricPayload span with MXSignpostMetric children; a diagnostic payload an \
            MXDiagnosticPayload span plus one log record per diagnostic. Each payload is one record of the \
            output. A payload that cannot be converted is reported on stderr with its file and JSON path; the \
            others are still converted.

            An output that is a payload file or the other output (same file by device and inode: same path, \
            hard or symbolic link, or a redirection of standard output) is refused as a usage error.

            Exit status: 0 all payloads converted; 1 at least one payload failed; 2 an output could not be \
            written; 64 usage error.
            """
    )

    @Argument(help: "Payload JSON files or directories.")
    var payloads: [String]

    @Option(help: "Where spans go (`-` for stdout).")
    var traces: String?

    @Option(help: "Where diagnostic log records go (`-` for stdout).")
    var logs: String?

    @Option(help: "Output framing: u32be (default), varint or jsonl.")
    var framing: String = "u32be"

    @Flag(help: "gzip-compress the outputs.")
    var gzip = false

    @Option(name: .customLong("assumed-utc-offset"), help: "Offset from UTC, in seconds, for timestamps written without one (device local time).")
    var assumedUTCOffset: Int = 0

    @Option(name: .customLong("service-name"), help: "service.name of the output's resource.")
    var serviceName: String = "metrickit"

    @Option(name: .customLong("max-payload-bytes"), help: "Largest payload file read, in bytes (larger ones fail without being read whole).")
    var maxPayloadBytes: Int = 16 << 20

    func validate() throws {
        guard traces != nil || logs != nil else { throw ValidationError("give --traces FILE and/or --logs FILE") }
        guard let framing = OTLPFraming(rawValue: framing), framing != .unframed else {
            throw ValidationError("--framing must be u32be, varint or jsonl")
        }
        guard maxPayloadBytes > 0 else { throw ValidationError("--max-payload-bytes must be positive") }
        if let traces, let logs, traces == logs, traces != "-" { throw ValidationError("--traces and --logs must differ (one signal per file)") }
        try refuseOutputsOverInputs()
    }

    /// Refuses an output that is the same regular file (device and inode: same path, hard or symbolic link,
    /// standard output redirected) as a payload file, a *.json file in a payload directory, or the other output:
    /// opening it would truncate that file before it is read.
    func refuseOutputsOverInputs() throws {
        var inputs: [(String, OTLPFileStatus)] = []
        for path in payloads {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }  // run() reports it
            let files = isDirectory.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".json") }.map { "\(path)/\($0)" }
                : [path]
            for file in files { if let identity = OTLPFileStatus.reached(by: file) { inputs.append((file, identity)) } }
        }
        var outputs: [(String, OTLPFileStatus)] = []
        for (option, path) in [("--traces", traces), ("--logs", logs)] {
            guard let path, let identity = path == "-" ? OTLPFileStatus.reached(byDescriptor: 1) : OTLPFileStatus.reached(by: path) else { continue }
            let name = "\(option) \(path == "-" ? "<stdout>" : path)"
            if let (input, _) = inputs.first(where: { identity.overlaps($0.1) }) {
                throw ValidationError("\(name) is the same file as payload \(input): writing it would destroy the payload before it is read")
            }
            if let (other, _) = outputs.first(where: { identity.overlaps($0.1) }) {
                throw ValidationError("\(name) is the same file as \(other) (one signal per file)")
            }
            outputs.append((name, identity))
        }
    }

    func run() throws {
        let files = try payloadFiles()
        let converter = MetricKitConverter(options: .init(assumedUTCOffsetSeconds: assumedUTCOffset))
        let resource = OTLPResource(attributes: [OTLPAttribute("service.name", .string(serviceName))])
        let scope = converter.options.scope
        let outputFraming = OTLPFraming(rawValue: framing)!
        let traceWriter = try traces.map { OTLPFrameWriter(sink: try Self.outputSink($0), framing: outputFraming, gzip: gzip) }
        let logWriter = try logs.map { OTLPFrameWriter(sink: try Self.outputSink($0), framing: outputFraming, gzip: gzip) }
        var metricCount = 0, diagnosticCount = 0, spanCount = 0, logCount = 0, failed = 0
        for file in files {
            do {
                let bytes = try readPayload(file)
                if Self.isDiagnosticPayload(bytes) {
                    let result = try converter.convertDiagnosticPayload(json: bytes)
                    try traceWriter?.write(OTLPTracesData(resource: resource, scope: scope, spans: [result.span]))
                    try logWriter?.write(OTLPLogsData(resource: resource, scope: scope, logRecords: result.logRecords))
                    diagnosticCount += 1
                    spanCount += 1
                    logCount += result.logRecords.count
                } else {
                    let spans = try converter.convertMetricPayload(json: bytes)
                    try traceWriter?.write(OTLPTracesData(resource: resource, scope: scope, spans: spans))
                    metricCount += 1
                    spanCount += spans.count
                }
            } catch let error as MetricKitConversionError {
                failed += 1
                Self.diagnostic("\(file): \(error)")
            } catch let error as OTLPReadError {
                failed += 1
                Self.diagnostic("\(file): \(error)")
            } catch let error as OTLPWriteError {
                Self.diagnostic("writing: \(error)")
                throw ExitCode(2)
            } catch {
                failed += 1
                Self.diagnostic("\(file): \(error.localizedDescription)")
            }
        }
        try traceWriter?.close()
        try logWriter?.close()
        Self.diagnostic("\(files.count) payloads: \(metricCount) metric, \(diagnosticCount) diagnostic, \(failed) failed; wrote \(traces == nil ? 0 : spanCount) spans, \(logs == nil ? 0 : logCount) log records")
        if failed > 0 { throw ExitCode(1) }
    }

    /// A payload's bytes, read up to one byte past the limit: a huge file, a device or a FIFO that never ends
    /// costs at most `maxPayloadBytes` of memory.
    func readPayload(_ file: String) throws -> [UInt8] {
        let source = try OTLPFileSource(path: file)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while bytes.count <= maxPayloadBytes {
            let wanted = min(chunk.count, maxPayloadBytes + 1 - bytes.count)
            let count = try chunk.withUnsafeMutableBytes { try source.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<wanted])) }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        guard bytes.count <= maxPayloadBytes else { throw PayloadTooLarge(limit: maxPayloadBytes) }
        return bytes
    }

    struct PayloadTooLarge: Error, LocalizedError {
        let limit: Int
        var errorDescription: String? { "payload is larger than \(limit) bytes (--max-payload-bytes)" }
    }

    /// Files named on the command line, and the *.json files of named directories (sorted).
    func payloadFiles() throws -> [String] {
        var files: [String] = []
        for path in payloads {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                Self.diagnostic("\(path): no such file or directory")
                throw ExitCode(1)
            }
            if isDirectory.boolValue {
                let names = try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".json") }.sorted()
                files += names.map { "\(path)/\($0)" }
            } else {
                files.append(path)
            }
        }
        return files
    }

    /// A diagnostic payload names at least one of the diagnostic arrays at the top level.
    static func isDiagnosticPayload(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        return ["crashDiagnostics", "hangDiagnostics", "cpuExceptionDiagnostics", "diskWriteExceptionDiagnostics", "appLaunchDiagnostics"]
            .contains { text.contains("\"\($0)\"") }
    }

    /// An output the user named: a symbolic link is followed (resolved once, at opening) and said so.
    static func outputSink(_ path: String) throws(OTLPWriteError) -> OTLPFileSink {
        let sink = try OTLPFileSink(path: path, followSymlink: true)
        if let target = sink.symlinkTarget { diagnostic("\(path) is a symbolic link: writing to \(target)") }
        return sink
    }

    static func diagnostic(_ message: String) {
        FileHandle.standardError.write(Data("otlp-metrickit: \(message)\n".utf8))
    }
}
