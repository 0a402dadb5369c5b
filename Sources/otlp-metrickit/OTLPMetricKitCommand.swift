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
            PAYLOAD arguments are files, or directories whose *.json files are read (sorted by name; other \
            entries of a directory, such as FIFOs, sockets and devices, are skipped with a warning). A metric \
            payload becomes an MXMetricPayload span with MXSignpostMetric children; a diagnostic payload an \
            MXDiagnosticPayload span plus one log record per diagnostic. Each payload is one record of the \
            output, or several when one would exceed 2 MiB (a quarter of the 8 MiB readers accept by default). A payload is diagnostic when a top-level diagnostic array (crashDiagnostics, \
            hangDiagnostics, …) is present, metric otherwise. Values of an unexpected type are skipped and \
            reported as warnings (and counted in metrickit.skipped_value_count); a payload that cannot be \
            converted at all is reported on stderr with its file and JSON path; the others are still converted.

            An output that is a payload file or the other output (same file by device and inode: same path, \
            hard or symbolic link, or a redirection of standard output) is refused as a usage error.

            Exit status: 0 all payloads converted; 1 at least one payload failed or a directory entry was \
            skipped; 2 an output could not be written; 64 usage error.
            """
    )

    @Argument(help: "Payload JSON files or directories.")
    var payloads: [String]

    @Option(help: "Where spans go (`-` for stdout).")
    var traces: String?

    @Option(help: "Where diagnostic log records go (`-` for stdout); not the file or stream --traces names.")
    var logs: String?

    @Option(help: "Output framing: u32be (default), varint or jsonl.")
    var framing: String = "u32be"

    @Flag(help: "gzip-compress the outputs.")
    var gzip = false

    @Flag(
        help:
            "Compress each record into one zstd frame behind a u32be length, as the Collector's file exporter does with compression: zstd (--framing u32be, or jsonl for JSON records)."
    )
    var zstd = false

    @Option(
        name: .customLong("assumed-utc-offset"),
        help: "Offset from UTC, in seconds, for timestamps written without one (device local time); -64800...64800 (±18 h).")
    var assumedUTCOffset: Int = MetricKitConverter.Options.default.assumedUTCOffsetSeconds

    @Option(name: .customLong("service-name"), help: "service.name of the output's resource.")
    var serviceName: String = "metrickit"

    @Option(
        name: .customLong("max-payload-bytes"),
        help: "Largest payload file read, in bytes (larger ones fail without being read whole); at most 1 GiB.")
    var maxPayloadBytes: Int = 16 << 20

    // Named as MetricKitConverter.Options.maxPayloadNestingDepth; the help states the default.
    @Option(
        name: .customLong("max-payload-nesting-depth"),
        help: """
            Deepest JSON nesting of a payload (a call stack takes about 2 levels per frame); \
            1...\(MetricKitConverter.Options.maxPayloadNestingDepthLimit). \
            (default: \(MetricKitConverter.Options.default.maxPayloadNestingDepth))
            """)
    var maxPayloadNestingDepth: Int?

    /// The payload nesting limit given, or the default.
    private var payloadNestingDepth: Int { maxPayloadNestingDepth ?? MetricKitConverter.Options.default.maxPayloadNestingDepth }

    /// The largest `--max-payload-bytes` accepted: 1 GiB (a payload is held and parsed in memory).
    static let maxPayloadBytesLimit = 1 << 30

    /// Converter options from the command line.
    var converterOptions: MetricKitConverter.Options {
        MetricKitConverter.Options(assumedUTCOffsetSeconds: assumedUTCOffset, maxPayloadNestingDepth: payloadNestingDepth)
    }

    func validate() throws {
        guard traces != nil || logs != nil else { throw ValidationError("give --traces FILE and/or --logs FILE") }
        guard let framing = OTLPFraming(rawValue: framing), framing != .unframed else {
            throw ValidationError("--framing must be u32be, varint or jsonl")
        }
        guard !zstd || framing == .u32be || framing == .jsonl else {
            throw ValidationError("--zstd writes the Collector's zstd records: use it with --framing u32be or jsonl")
        }
        guard !(zstd && gzip) else { throw ValidationError("--gzip and --zstd: choose one compression") }
        guard (1...Self.maxPayloadBytesLimit).contains(maxPayloadBytes) else {
            throw ValidationError("--max-payload-bytes must be 1...\(Self.maxPayloadBytesLimit)")
        }
        let maxOffset = MetricKitTimestamp.maxUTCOffsetSeconds
        guard (-maxOffset...maxOffset).contains(assumedUTCOffset) else {
            throw ValidationError("--assumed-utc-offset must be -\(maxOffset)...\(maxOffset) seconds (±18 hours), not \(assumedUTCOffset)")
        }
        guard (1...MetricKitConverter.Options.maxPayloadNestingDepthLimit).contains(payloadNestingDepth) else {
            throw ValidationError("--max-payload-nesting-depth must be 1...\(MetricKitConverter.Options.maxPayloadNestingDepthLimit)")
        }
        if let traces, let logs, Self.sameOutput(traces, logs) {
            throw ValidationError("--traces and --logs name the same output (\(traces), \(logs)): each signal needs its own file or stream")
        }
        try refuseOutputsOverInputs()
    }

    /// Refuses an output that is the same regular file (device and inode: same path, hard or symbolic link,
    /// standard output redirected) as a payload file or a *.json file in a payload directory: opening it would
    /// truncate that file before it is read. (Two outputs naming one file are refused by ``sameOutput(_:_:)``.)
    func refuseOutputsOverInputs() throws {
        var inputs: [(String, OTLPFileStatus)] = []
        for path in payloads {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }  // run() reports it
            let files =
                isDirectory.boolValue
                ? (try? Self.directoryPayloads(path).files) ?? []
                : [path]
            for file in files { if let identity = OTLPFileStatus.reached(by: file) { inputs.append((file, identity)) } }
        }
        for (option, path) in [("--traces", traces), ("--logs", logs)] {
            guard let path, let identity = path == "-" ? OTLPFileStatus.reached(byDescriptor: 1) : OTLPFileStatus.reached(by: path) else {
                continue
            }
            if let (input, _) = inputs.first(where: { identity.overlaps($0.1) }) {
                throw ValidationError(
                    "\(option) \(path == "-" ? "<stdout>" : path) is the same file as payload \(input): writing it would destroy the payload before it is read"
                )
            }
        }
    }

    /// Runs the command, with standard output checked at exit (``OTLPStandardOutputCheck``): `--help` into a
    /// full disk is exit 2 too.
    static func main() {
        OTLPStandardOutputCheck.install(program: "otlp-metrickit")
        main(nil)
    }

    func run() throws {
        let (files, skippedEntries) = try payloadFiles()
        for entry in skippedEntries { Self.diagnostic("\(entry.path): warning: skipped, not a regular file (\(entry.type))") }
        let converter = MetricKitConverter(options: converterOptions)
        let resource = OTLPResource(attributes: [OTLPAttribute("service.name", .string(serviceName))])
        let scope = converter.options.scope
        let outputFraming = OTLPFraming(rawValue: framing)!
        let traceWriter: OTLPRecordWriter?, logWriter: OTLPRecordWriter?
        do {
            traceWriter = try traces.map { OTLPRecordWriter(sink: try Self.outputSink($0), framing: outputFraming, gzip: gzip, zstd: zstd) }
            logWriter = try logs.map { OTLPRecordWriter(sink: try Self.outputSink($0), framing: outputFraming, gzip: gzip, zstd: zstd) }
        } catch let error as OTLPWriteError {
            Self.diagnostic("\(error)")  // names the output and the system's reason
            throw ExitCode(2)
        }
        var metricCount = 0, diagnosticCount = 0, spanCount = 0, logCount = 0, failed = 0, skipped = 0
        for (file, listed) in files {
            do {
                let bytes = try readPayload(file, regularFileOnly: listed)
                let skippedValues: [MetricKitConversionError], skippedCount: Int
                // Converted whole before anything is written: a payload that fails leaves no partial record.
                // Encoded whole, too (split into records readers accept), before anything is written.
                switch try converter.convertPayload(json: bytes) {
                case .diagnostic(let result):
                    let spanRecords =
                        traceWriter == nil
                        ? [] : try Self.traceRecords([result.span], resource: resource, scope: scope, framing: outputFraming)
                    let logRecords =
                        logWriter == nil
                        ? [] : try Self.logRecords(result.logRecords, resource: resource, scope: scope, framing: outputFraming)
                    try Self.write(spanRecords, to: traceWriter)
                    try Self.write(logRecords, to: logWriter)
                    diagnosticCount += 1
                    spanCount += 1
                    logCount += result.logRecords.count
                    (skippedValues, skippedCount) = (result.skippedValues, result.skippedValueCount)
                case .metric(let result):
                    let spanRecords =
                        traceWriter == nil
                        ? [] : try Self.traceRecords(result.spans, resource: resource, scope: scope, framing: outputFraming)
                    try Self.write(spanRecords, to: traceWriter)
                    metricCount += 1
                    spanCount += result.spans.count
                    (skippedValues, skippedCount) = (result.skippedValues, result.skippedValueCount)
                }
                // One gzip member per payload: what is converted survives whatever happens later.
                try traceWriter?.flush()
                try logWriter?.flush()
                skipped += skippedCount
                let warned = skippedValues.prefix(Self.maxWarningsPerPayload).filter {
                    $0.path != "$" || !$0.message.hasSuffix("more values skipped")
                }
                for value in warned { Self.diagnostic("\(file): warning: \(value)") }
                if skippedCount > warned.count { Self.diagnostic("\(file): warning: \(skippedCount - warned.count) more values skipped") }
            } catch let error as MetricKitConversionError {
                failed += 1
                Self.diagnostic("\(file): \(error)")
            } catch let error as OTLPReadError {
                failed += 1
                Self.diagnostic("\(file): \(error)")
            } catch let error as OTLPWriteError {
                // The other output is still closed properly (a gzip output ends with a complete member).
                try? traceWriter?.close()
                try? logWriter?.close()
                throw Self.exitStatus(writing: error)
            } catch {
                failed += 1
                Self.diagnostic("\(file): \(error.localizedDescription)")
            }
        }
        try Self.close([traceWriter, logWriter])
        let skippedText = skipped > 0 ? "; \(skipped) values skipped" : ""
        let entriesText =
            skippedEntries.isEmpty
            ? "" : ", \(skippedEntries.count) skipped (not \(skippedEntries.count == 1 ? "a regular file" : "regular files"))"
        Self.diagnostic(
            "\(files.count) payloads: \(metricCount) metric, \(diagnosticCount) diagnostic, \(failed) failed\(entriesText); wrote \(traces == nil ? 0 : spanCount) spans, \(logs == nil ? 0 : logCount) log records\(skippedText)"
        )
        if failed > 0 || !skippedEntries.isEmpty { throw ExitCode(1) }
    }

    /// Closes the outputs in order; a write error ends the command (``exitStatus(writing:)``).
    static func close(_ writers: [OTLPRecordWriter?]) throws {
        for writer in writers {
            do throws(OTLPWriteError) {
                try writer?.close()
            } catch {
                throw exitStatus(writing: error)
            }
        }
    }

    /// The exit for a failed write: a reader that went away (`| head`, EPIPE) only stops the output, quietly,
    /// as for otlp-dump; any other write error is reported and exit 2.
    static func exitStatus(writing error: OTLPWriteError) -> ExitCode {
        if error.errno == EPIPE { return .success }
        diagnostic("writing: \(error)")
        return ExitCode(2)
    }

    /// Warnings printed per payload for skipped values (all are counted in the summary and the output).
    static let maxWarningsPerPayload = 10

    /// A payload's bytes, read up to one byte past the limit: a huge file, a device or a FIFO that never ends
    /// costs at most `maxPayloadBytes` of memory. With `regularFileOnly` (a file found in a directory) anything
    /// but a regular file is refused without blocking, should the entry have changed since it was listed.
    func readPayload(_ file: String, regularFileOnly: Bool = false) throws -> [UInt8] {
        let source = regularFileOnly ? try OTLPFileSource(regularFile: file) : try OTLPFileSource(path: file)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while bytes.count <= maxPayloadBytes {
            // maxPayloadBytes - bytes.count is at least 0 here, and + 1 only when it is below chunk.count.
            let remaining = maxPayloadBytes - bytes.count
            let wanted = remaining < chunk.count ? remaining + 1 : chunk.count
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

    /// Files named on the command line (read whatever they are: a FIFO, `<(…)` too), and the *.json files of
    /// named directories (`listed`, sorted); `skipped`: the *.json entries of those directories that are not
    /// regular files (``directoryPayloads(_:)``).
    func payloadFiles() throws -> (files: [(path: String, listed: Bool)], skipped: [(path: String, type: String)]) {
        var files: [(path: String, listed: Bool)] = [], skipped: [(path: String, type: String)] = []
        for path in payloads {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                Self.diagnostic("\(path): no such file or directory")
                throw ExitCode(1)
            }
            if isDirectory.boolValue {
                let listing = try Self.directoryPayloads(path)
                files += listing.files.map { ($0, true) }
                skipped += listing.skipped
            } else {
                files.append((path, false))
            }
        }
        return (files, skipped)
    }

    /// The *.json entries of `directory`, sorted by name: `files`, those to read: regular files (links
    /// followed) and entries that cannot be inspected (reading them reports why); `skipped`: anything else (a
    /// FIFO, socket, device or directory), with what it is. A skipped entry is never opened: a FIFO with no
    /// writer would block the command for ever.
    static func directoryPayloads(_ directory: String) throws -> (files: [String], skipped: [(path: String, type: String)]) {
        var files: [String] = [], skipped: [(path: String, type: String)] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: directory).filter({ $0.hasSuffix(".json") }).sorted() {
            let path = "\(directory)/\(name)"
            if let status = OTLPFileStatus.reached(by: path), !status.isRegularFile {
                skipped.append((path, status.typeDescription))
            } else {
                files.append(path)
            }
        }
        return (files, skipped)
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
