import ArgumentParser
import Foundation
import OTLPHTTP
import OTLPTelemetry
import OTLPWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `--protocol` values.
enum ProtocolChoice: String, ExpressibleByArgument, CaseIterable {
    case httpProtobuf = "http/protobuf"
    case httpJSON = "http/json"

    var wireProtocol: OTLPHTTPProtocol { self == .httpJSON ? .httpJSON : .httpProtobuf }
}

/// `--compression` values.
enum CompressionChoice: String, ExpressibleByArgument, CaseIterable {
    case gzip, none

    var compression: OTLPCompression { self == .gzip ? .gzip : .none }
}

struct SendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Post every record to an OpenTelemetry collector over OTLP/HTTP.",
        discussion: """
            Each record is one request, POST ENDPOINT/v1/traces or ENDPOINT/v1/logs. Records are checked as \
            `validate` checks them; protobuf records are sent as they are (each is already an OTLP/HTTP body), \
            and so are JSON lines with --protocol http/json; otherwise a record is decoded and encoded again. \
            429, 502, 503, 504 and connection failures are retried with backoff (and as Retry-After asks) \
            within --timeout per record. Records without spans or log records are not sent (counted in the \
            summary). A record the collector refuses with another status is reported and \
            the next one is sent; when the collector stays unreachable, sending stops there. A progress line \
            is shown on a terminal; the summary (what was sent, accepted, rejected, not sent) goes to stdout.

            --spool DIR drains a spool directory left by an OTLPWire app (the `otlp.spool` setting) instead of \
            files: its traces and logs are sent in order, each record acknowledged in the spool's checkpoint \
            once the collector answered it, and files deleted when all their records are; safe to kill and run \
            again (at most the record in flight is sent twice). --checkpoint FILE does the same for files: a \
            run records there how many records of each file were answered, and a later run with the same FILE \
            resumes after them.

            Exit status:
              0   every record sent and accepted
              1   damaged or invalid input, or damage found in the spool (every record before the fault was sent)
              2   a file (or the spool, or the checkpoint) could not be opened, read or written
              3   the collector refused data (wholly or partly) or stayed unreachable past the retries
              64  usage error
            """
    )

    @OptionGroup var input: InputOptions

    @Option(help: "The collector's OTLP/HTTP base URL; /v1/traces and /v1/logs are appended (e.g. http://localhost:4318).")
    var endpoint: String

    @Option(name: .customLong("header"), help: "A request header, NAME=VALUE (repeatable), e.g. --header 'authorization=Bearer TOKEN'.")
    var headers: [String] = []

    @Option(help: "Request body compression: gzip or none.")
    var compression: CompressionChoice = .gzip

    @Option(name: .customLong("protocol"), help: "http/protobuf or http/json.")
    var wireProtocol: ProtocolChoice = .httpProtobuf

    @Option(help: "Send the spool directory DIR (what an app's `otlp.spool` left) instead of files, in order, acknowledging as it goes.")
    var spool: String?

    @Option(help: "Record in FILE how many records of each input file the collector answered, and skip those on a later run with the same FILE.")
    var checkpoint: String?

    @Option(help: "Seconds each record may take, retries included (\(OTLPExporterConfiguration.timeoutSecondsRange.lowerBound)...\(OTLPExporterConfiguration.timeoutSecondsRange.upperBound)).")
    var timeout: Double = OTLPExporterConfiguration.default.timeoutSeconds

    /// The `otlp` settings these options describe.
    var exporterConfiguration: OTLPExporterConfiguration {
        var parsed: [String: String] = [:]
        for header in headers {
            let parts = header.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).trimmingCharacters(in: .whitespaces)
            // Header names are case-insensitive: the last of a name wins, whatever its case.
            if let earlier = parsed.keys.first(where: { $0.lowercased() == name.lowercased() }) { parsed[earlier] = nil }
            parsed[name] = parts.count > 1 ? String(parts[1]) : ""
        }
        return OTLPExporterConfiguration(
            endpoint: endpoint, protocol: wireProtocol.wireProtocol, compression: compression.compression, headers: parsed, timeoutSeconds: timeout)
    }

    func validate() throws {
        if spool != nil {
            guard input.files == ["-"] else { throw ValidationError("--spool sends a spool directory: give no files with it") }
            guard checkpoint == nil else { throw ValidationError("--spool keeps its own checkpoint in the spool: --checkpoint is for files") }
        }
        for header in headers where !header.contains("=") {
            throw ValidationError("--header must be NAME=VALUE, got \(TerminalText.escaped(header))")
        }
        guard timeout.isFinite, OTLPExporterConfiguration.timeoutSecondsRange.contains(timeout) else {
            throw ValidationError("--timeout must be within \(OTLPExporterConfiguration.timeoutSecondsRange), got \(timeout)")
        }
        let path = URLComponents(string: endpoint)?.path ?? ""
        if path.hasSuffix("/v1/traces") || path.hasSuffix("/v1/logs") || path.hasSuffix("/v1/traces/") || path.hasSuffix("/v1/logs/") {
            throw ValidationError("--endpoint is the collector's base URL (/v1/traces and /v1/logs are appended), got \(TerminalText.escaped(endpoint))")
        }
        // The checks the configuration makes of an `otlp` section, named by the options that set it.
        if let problem = OTLPTelemetryConfiguration(otlp: exporterConfiguration).problems.first {
            let option = problem.keyPath.hasPrefix("otlp.headers") ? "--header" : problem.keyPath.hasPrefix("otlp.endpoint") ? "--endpoint" : problem.keyPath
            throw ValidationError("\(option): \(TerminalText.escaped(problem.message))")
        }
    }

    func run() throws {
        if let spool { return try sendSpool(spool) }
        let configuration = exporterConfiguration
        var resume = SendCheckpoint(path: checkpoint)
        if let error = resume.loadError {
            Output.diagnostic(error)
            throw ExitStatus.ioError
        }
        var senders: [OTLPSignal: OTLPHTTPSender] = [:]
        defer { for sender in senders.values { sender.shutdown() } }
        var tally = SendTally()
        let jsonEncoder = OTLPJSONEncoder()
        let encoder = OTLPEncoder()
        var inputStatus = ExitCode.success
        var stopped = false
        let progress = SendProgress()
        for file in input.files where !stopped {
            let reader: OTLPStreamReader
            do {
                reader = try resume.open(file, options: input.readerOptions)
            } catch {
                progress.clear()
                Output.diagnostic("\(displayName(file)): \(error)")
                if inputStatus == .success { inputStatus = error.code == .io ? ExitStatus.ioError : ExitStatus.damagedInput }
                continue
            }
            let passThrough = (reader.framing == .jsonl) == (wireProtocol == .httpJSON)
            let (answered, warning) = resume.answeredRecords(of: file)
            if let warning { progress.clear(); Output.diagnostic(warning) }
            do {
                while true {
                    let index: Int, signal: OTLPSignal, items: Int, body: [UInt8]
                    if passThrough {
                        guard let record = try reader.nextChecked() else { break }
                        (index, signal, items, body) = (record.index, record.signal, record.itemCount, record.bytes)
                    } else {
                        guard let record = try reader.next() else { break }
                        (index, signal, items) = (record.index, record.payload.signal, record.payload.itemCount)
                        body = wireProtocol == .httpJSON ? jsonEncoder.encode(record.payload) : encoder.withEncoded(record.payload) { Array($0) }
                    }
                    // Answered in an earlier run with this checkpoint: read (so the stream stays in step), not sent.
                    if index < answered {
                        tally.resumedRecords += 1
                        continue
                    }
                    // A request without spans or log records delivers nothing (and some collectors refuse `{}`).
                    guard items > 0 else {
                        tally.emptyRecords += 1
                        try resume.answered(index + 1, of: file)
                        continue
                    }
                    guard let sender = senders[signal] ?? configuration.resolved(for: signal).map({ OTLPHTTPSender(signal: signal, endpoint: $0) }) else {
                        // validate() refused every endpoint resolved(for:) would not take.
                        throw ValidationError("--endpoint: not an absolute http or https URL: \(endpoint)")
                    }
                    senders[signal] = sender
                    let result = sender.send(body)
                    tally.retries += max(0, result.attempts - 1)
                    let place = "\(displayName(file)): record \(index)"
                    switch result.outcome {
                    case .accepted(let rejectedCount, let message):
                        tally.accepted(items: items, bytes: body.count, signal: signal)
                        // A collector's count is hostile input: never below 0 nor above the items sent.
                        let rejected = Int(clamping: min(max(rejectedCount, 0), Int64(items)))
                        if rejected > 0 {
                            progress.clear()
                            Output.diagnostic("\(place): the collector rejected \(rejected) of \(items) items\(message.isEmpty ? "" : ": \(TerminalText.escaped(message))")")
                            tally.rejectedItems += rejected
                        } else if !message.isEmpty {
                            progress.clear()
                            Output.diagnostic("\(place): accepted, with a message from the collector: \(TerminalText.escaped(message))")
                        }
                    case .refused(let statusCode, let message):
                        progress.clear()
                        Output.diagnostic("\(place): not accepted: HTTP \(statusCode)\(message.isEmpty ? "" : ": \(TerminalText.escaped(message))")")
                        tally.refused(items: items)
                    case .failed(let reason):
                        progress.clear()
                        Output.diagnostic("\(place): not sent: \(TerminalText.escaped(reason)); stopping")
                        tally.refused(items: items)
                        tally.unreachable = true
                        stopped = true
                    }
                    if stopped { break }
                    try resume.answered(index + 1, of: file)
                    progress.update(tally)
                }
                // Ended before the records the checkpoint counts: never a silent skip.
                if reader.recordsRead < answered { throw resume.pastEnd(of: file, recordsFound: reader.recordsRead) }
            } catch let error as OTLPReadError {
                progress.clear()
                Output.diagnostic("\(displayName(file)): \(error)")
                if inputStatus == .success { inputStatus = error.code == .io ? ExitStatus.ioError : ExitStatus.damagedInput }
            } catch let error as OTLPWriteError {
                // The checkpoint cannot be written: stop, or a re-run would send what was delivered again.
                progress.clear()
                Output.diagnostic("--checkpoint: \(TerminalText.escaped("\(error)")); stopping")
                inputStatus = ExitStatus.ioError
                stopped = true
            }
        }
        progress.clear()
        let output = Output.standard
        output.write(tally.summary(endpoint: endpoint) + "\n")
        var status = tally.collectorRefused ? ExitStatus.collectorRefused : inputStatus
        status = output.finish(status: status)
        if status != .success { throw status }
    }
}

/// What `send` sent, and what became of it.
struct SendTally {
    var records = 0
    var spans = 0
    var logRecords = 0
    var bytes = 0
    var rejectedItems = 0
    var refusedRecords = 0
    var refusedItems = 0
    var retries = 0
    var emptyRecords = 0
    var resumedRecords = 0
    var unreachable = false
    let started = Date()

    var collectorRefused: Bool { rejectedItems > 0 || refusedRecords > 0 }

    mutating func accepted(items: Int, bytes: Int, signal: OTLPSignal) {
        records += 1
        if signal == .traces { spans += items } else { logRecords += items }
        self.bytes += bytes
    }

    mutating func refused(items: Int) {
        refusedRecords += 1
        refusedItems += items
    }

    func summary(endpoint: String) -> String {
        var text = "accepted \(records) records (\(spans) spans, \(logRecords) log records, \(bytes) bytes) at \(TerminalText.escaped(endpoint))"
        if rejectedItems > 0 { text += ", of which the collector rejected \(rejectedItems) items" }
        if refusedRecords > 0 {
            text += "; not accepted: \(refusedRecords) records (\(refusedItems) items)"
            if unreachable { text += ", the collector unreachable; later records not sent" }
        }
        if emptyRecords > 0 { text += "; \(emptyRecords) records without items not sent" }
        if resumedRecords > 0 { text += "; \(resumedRecords) records answered in an earlier run skipped (--checkpoint)" }
        if retries > 0 { text += "; \(retries) retries" }
        return text
    }
}

/// The progress line on standard error, when it is a terminal: records, items, bytes and rate, at most
/// four times a second.
final class SendProgress {
    private let isTerminal = isatty(2) == 1
    private var shown = false
    private var lastUpdate = Date.distantPast

    func update(_ tally: SendTally) {
        guard isTerminal, Date().timeIntervalSince(lastUpdate) >= 0.25 else { return }
        lastUpdate = Date()
        let seconds = max(Date().timeIntervalSince(tally.started), 0.001)
        let line = String(
            format: "\r\u{1B}[Ksent %d records, %d items, %.1f MB, %.0f records/s", tally.records, tally.spans + tally.logRecords,
            Double(tally.bytes) / 1e6, Double(tally.records) / seconds)
        Output.diagnosticRaw(line)
        shown = true
    }

    func clear() {
        guard shown else { return }
        Output.diagnosticRaw("\r\u{1B}[K")
        shown = false
    }
}
