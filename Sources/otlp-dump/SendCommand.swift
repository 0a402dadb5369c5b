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
            Each record is one request, POST ENDPOINT/v1/traces, ENDPOINT/v1/logs or ENDPOINT/v1/metrics. Records are checked as \
            `validate` checks them; protobuf records are sent as they are (each is already an OTLP/HTTP body), \
            and so are JSON lines with --protocol http/json; otherwise a record is decoded and encoded again. \
            429, 502, 503, 504 and connection failures are retried with backoff (and as Retry-After asks) \
            within --timeout per record. Records without items (spans, log records or metrics) are not sent \
            (counted in the summary). A record the collector refuses for its content (400 with an OTLP Status) is reported and \
            the next one is sent; a 413 sends the record's halves in turn. Any other failure (unreachable past \
            the retries, 401, 403, 404, a redirect, a 5xx, an answer that is not OTLP) says the endpoint is \
            wrong right now: sending stops there. A progress line is shown on a terminal; the summary (what was \
            sent, accepted, rejected, not sent) goes to stdout.

            --spool DIR drains a spool directory left by an OTLPWire app (the `otlp.spool` setting) instead of \
            files: its traces and logs are sent in order, each record acknowledged in the spool's checkpoint \
            once the collector answered it, and files deleted when all their records are; safe to kill and run \
            again (at most the record in flight is sent twice). A record refused for its content moves to \
            the spool's quarantine (traces/rejected/, logs/rejected/); on any other failure the run stops and \
            every record stays in the spool. --checkpoint FILE does the same for files: a run records there \
            how many records of each file were answered, with the file's identity (device, inode, a hash of its \
            first 4 KiB), and a later run with the same FILE resumes after them; another file at the same path \
            (a rotated log) is sent from its start with a warning, and a file shorter than its count is exit 2.

            Exit status:
              0   every record sent and accepted
              1   damaged or invalid input, or damage found in the spool
                  (every record before the fault was sent)
              2   a file (or the spool, or the checkpoint) could not be opened,
                  read or written, or a file ends before the records its
                  checkpoint counts
              3   the collector refused data (wholly or partly), stayed
                  unreachable past the retries, or answered as no OTLP
                  endpoint would (the rest is not sent)
              64  usage error
            """
    )

    @OptionGroup var input: InputOptions

    @Option(help: "The collector's OTLP/HTTP base URL; /v1/traces, /v1/logs or /v1/metrics is appended (e.g. http://localhost:4318).")
    var endpoint: String

    @Option(name: .customLong("header"), help: "A request header, NAME=VALUE (repeatable), e.g. --header 'authorization=Bearer TOKEN'.")
    var headers: [String] = []

    @Option(help: "Request body compression: gzip or none.")
    var compression: CompressionChoice = .gzip

    @Option(name: .customLong("protocol"), help: "http/protobuf or http/json.")
    var wireProtocol: ProtocolChoice = .httpProtobuf

    @Option(help: "Send the spool directory DIR (what an app's `otlp.spool` left) instead of files, in order, acknowledging as it goes.")
    var spool: String?

    @Option(
        help:
            "Record in FILE how many records of each input file the collector answered (with the file's identity), and skip those on a later run with the same FILE and the same file."
    )
    var checkpoint: String?

    @Option(
        help:
            "Seconds each record may take, retries included (\(OTLPExporterConfiguration.timeoutSecondsRange.lowerBound)...\(OTLPExporterConfiguration.timeoutSecondsRange.upperBound))."
    )
    var timeout: Double = OTLPExporterConfiguration.default.timeoutSeconds

    @Option(
        help:
            "PEM file of the certificate authorities that verify an https collector (a private CA). Default: $OTEL_EXPORTER_OTLP_CERTIFICATE, else the system's trust roots."
    )
    var certificate: String?

    @Option(
        name: .customLong("client-certificate"),
        help: "PEM file of a client certificate chain, for a collector that asks for one. Default: $OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE.")
    var clientCertificate: String?

    @Option(
        name: .customLong("client-key"), help: "PEM file of the client certificate's private key. Default: $OTEL_EXPORTER_OTLP_CLIENT_KEY.")
    var clientKey: String?

    /// The TLS files: each option, else the variable the library reads for it (the base one and the signal's
    /// own, as ``OTLPTelemetryConfiguration/applyingEnvironment(_:)`` reads them).
    var tls: (base: OTLPExporterConfiguration.TLSFiles, signals: [OTLPSignal: OTLPExporterConfiguration.TLSFiles]) {
        let environment = ProcessInfo.processInfo.environment
        func variable(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let base = OTLPExporterConfiguration.TLSFiles(
            certificate: certificate ?? variable("OTEL_EXPORTER_OTLP_CERTIFICATE"),
            clientKey: clientKey ?? variable("OTEL_EXPORTER_OTLP_CLIENT_KEY"),
            clientCertificate: clientCertificate ?? variable("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"))
        var signals: [OTLPSignal: OTLPExporterConfiguration.TLSFiles] = [:]
        // Metrics have no settings of their own: the base files serve them.
        for signal in OTLPSignal.sdkSignals {
            let prefix = "OTEL_EXPORTER_OTLP_\(signal.rawValue.uppercased())_"
            // An option wins over every variable.
            signals[signal] = OTLPExporterConfiguration.TLSFiles(
                certificate: certificate == nil ? variable(prefix + "CERTIFICATE") : nil,
                clientKey: clientKey == nil ? variable(prefix + "CLIENT_KEY") : nil,
                clientCertificate: clientCertificate == nil ? variable(prefix + "CLIENT_CERTIFICATE") : nil)
        }
        return (base, signals)
    }

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
        let tls = self.tls
        var configuration = OTLPExporterConfiguration(
            endpoint: endpoint, protocol: wireProtocol.wireProtocol, compression: compression.compression, headers: parsed,
            timeoutSeconds: timeout, tls: tls.base)
        for (signal, files) in tls.signals where !files.isEmpty { configuration[signal].tls = files }
        return configuration
    }

    /// Where the records of `tally` were posted, as messages print it: the URL of each signal posted, accepted
    /// or not (the base endpoint with its signal's path, not the endpoint as given: what a failure's "check its
    /// path" is about), else the endpoint.
    func postedTo(_ tally: SendTally) -> String {
        let configuration = exporterConfiguration
        let urls = OTLPSignal.allCases.filter(tally.signalsPosted.contains).compactMap { signal in
            configuration.resolved(for: signal).map { OTLPExporterConfiguration.Resolved.redacted(url: $0.url.absoluteString) }
        }
        return urls.isEmpty ? redactedEndpoint : urls.joined(separator: " and ")
    }

    /// ``endpoint`` as messages print it: its user-info and query never leave the process.
    var redactedEndpoint: String { OTLPExporterConfiguration.Resolved.redacted(url: endpoint) }

    func validate() throws {
        if spool != nil {
            guard input.files == ["-"] else { throw ValidationError("--spool sends a spool directory: give no files with it") }
            guard checkpoint == nil else {
                throw ValidationError("--spool keeps its own checkpoint in the spool: --checkpoint is for files")
            }
        }
        // A TLS file given here must be readable now: a usage error naming the option (it was reported as the
        // collector being unreachable, exit 3, under the library's variable names).
        for (option, path) in [("--certificate", certificate), ("--client-certificate", clientCertificate), ("--client-key", clientKey)] {
            guard let path else { continue }
            guard let found = OTLPFileStatus.reached(by: path) else {
                throw ValidationError("\(option) \(TerminalText.escaped(path)): no such file")
            }
            guard found.isRegularFile, FileManager.default.isReadableFile(atPath: path) else {
                throw ValidationError("\(option) \(TerminalText.escaped(path)): not a readable file")
            }
        }
        for header in headers where !header.contains("=") {
            // The value may be a secret (a bare token): the message never repeats it.
            throw ValidationError("--header must be NAME=VALUE; got a value without \"=\" (not shown: it may be a secret)")
        }
        guard timeout.isFinite, OTLPExporterConfiguration.timeoutSecondsRange.contains(timeout) else {
            throw ValidationError("--timeout must be within \(OTLPExporterConfiguration.timeoutSecondsRange), got \(timeout)")
        }
        // The checks the configuration makes of an `otlp` section, named by the options that set it.
        if let problem = OTLPTelemetryConfiguration(otlp: exporterConfiguration).problems.first {
            let option =
                problem.keyPath.hasPrefix("otlp.headers")
                ? "--header"
                : problem.keyPath.hasPrefix("otlp.endpoint")
                    ? "--endpoint"
                    : problem.keyPath.contains("tls.")
                        ? "--certificate/--client-certificate/--client-key (or OTEL_EXPORTER_OTLP_CERTIFICATE…)" : problem.keyPath
            throw ValidationError("\(option): \(TerminalText.escaped(problem.message))")
        }
    }

    func run() throws {
        // The library's rule, said the library's way: a signal's path at the end of the base URL is taken off.
        // send has no endpoint per signal (the library's variables for one are not read here): it says so.
        if let warning = OTLPExporterConfiguration.signalPathWarning(
            endpoint: endpoint, fullURLAdvice: "send posts each record to its signal's path under the base URL: give the base URL")
        {
            Output.diagnostic("--endpoint: \(TerminalText.escaped(warning))")
        }
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
        // A directory stands for its OTLP files, as in the other commands (the span journal left out).
        for file in input.inputFiles(status: &inputStatus) where !stopped {
            let reader: OTLPRecordReader
            do {
                reader = try resume.open(file, options: input.readerOptions)
            } catch {
                progress.clear()
                Output.diagnostic("\(displayName(file)): \(error)")
                if inputStatus == .success { inputStatus = error.code == .io ? ExitStatus.ioError : ExitStatus.damagedInput }
                continue
            }
            // zstd records may hold JSON or protobuf, record by record: those are decoded and encoded again.
            let passThrough = reader.compression != .zstdRecords && (reader.framing == .jsonl) == (wireProtocol == .httpJSON)
            let (answered, warning) = resume.answeredRecords(of: file)
            if let warning { progress.clear(); Output.diagnostic(warning) }
            do {
                while true {
                    let index: Int, signal: OTLPSignal, items: Int, body: [UInt8], decoded: OTLPPayload?
                    if passThrough {
                        guard let record = try reader.nextChecked() else { break }
                        (index, signal, items, body, decoded) = (record.index, record.signal, record.itemCount, record.bytes, nil)
                    } else {
                        guard let record = try reader.next() else { break }
                        (index, signal, items, decoded) = (record.index, record.payload.signal, record.payload.itemCount, record.payload)
                        body =
                            wireProtocol == .httpJSON
                            ? jsonEncoder.encode(record.payload) : encoder.withEncoded(record.payload) { Array($0) }
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
                    guard
                        let sender = senders[signal]
                            ?? configuration.resolved(for: signal).map({ OTLPHTTPSender(signal: signal, endpoint: $0) })
                    else {
                        // validate() refused every endpoint resolved(for:) would not take.
                        throw ValidationError("--endpoint: not an absolute http or https URL: \(TerminalText.escaped(redactedEndpoint))")
                    }
                    senders[signal] = sender
                    tally.signalsPosted.insert(signal)
                    let result = sender.send(body)
                    // Only a 413 needs the record decoded (its halves are sent in turn).
                    let payload: () -> OTLPPayload? = {
                        if let decoded { return decoded }
                        return body.withUnsafeBytes { bytes -> OTLPPayload? in
                            if reader.framing == .jsonl {
                                let json = OTLPJSONDecoder()
                                switch signal {
                                case .traces: return try? .traces(json.decodeTraces(bytes))
                                case .logs: return try? .logs(json.decodeLogs(bytes))
                                case .metrics: return try? .metrics(json.decodeMetrics(bytes))
                                }
                            }
                            let decoder = OTLPDecoder()
                            switch signal {
                            case .traces: return try? .traces(decoder.decodeTraces(bytes))
                            case .logs: return try? .logs(decoder.decodeLogs(bytes))
                            case .metrics: return try? .metrics(decoder.decodeMetrics(bytes))
                            }
                        }
                    }
                    let delivery = Self.delivery(
                        after: result, of: body.count, items: items, signal: signal, payload: payload, sender: sender, encoder: encoder)
                    tally.retries += delivery.retries
                    let place = "\(displayName(file)): record \(index)"
                    let refusedItems = delivery.refusedRequests.reduce(0) { $0 + $1.items }
                    let partlyRejected = delivery.rejectedItems - refusedItems
                    if delivery.acceptedItems + partlyRejected > 0 {
                        tally.accepted(items: delivery.acceptedItems + partlyRejected, bytes: delivery.acceptedBytes, signal: signal)
                        tally.rejectedItems += partlyRejected
                    }
                    tally.rejectedDataPoints += delivery.rejectedDataPoints
                    if refusedItems > 0 { tally.refused(items: refusedItems, signal: signal) }
                    for message in delivery.messages {
                        progress.clear()
                        // A collector's text is hostile input: at most 512 characters of it, escaped.
                        Output.diagnostic("\(place): the collector \(TerminalText.escaped(message, maxCharacters: 512))")
                    }
                    if let failure = delivery.failure {
                        progress.clear()
                        Output.diagnostic("\(place): not sent: \(TerminalText.escaped(failure, maxCharacters: 512)); stopping")
                        tally.refused(items: delivery.undeliveredItems, signal: signal)
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
        output.write(tally.summary(endpoint: postedTo(tally)) + "\n")
        var status = tally.collectorRefused ? ExitStatus.collectorRefused : inputStatus
        status = output.finish(status: status)
        if status != .success { throw status }
    }
}

extension SendCommand {
    /// What became of a record whose first attempt gave `first`: a 413 sends its halves (decoded by `payload`).
    static func delivery(
        after first: OTLPHTTPSender.Result, of bodyBytes: Int, items: Int, signal: OTLPSignal, payload: () -> OTLPPayload?,
        sender: OTLPHTTPSender, encoder: OTLPEncoder
    ) -> OTLPHTTPSender.Delivery {
        switch signal {
        case .traces:
            sender.deliver(
                afterFirstAttempt: first, bodyBytes: bodyBytes, itemCount: items,
                request: { if case .traces(let data)? = payload() { data } else { nil } }, protobuf: { [] }, encoder: encoder)
        case .logs:
            sender.deliver(
                afterFirstAttempt: first, bodyBytes: bodyBytes, itemCount: items,
                request: { if case .logs(let data)? = payload() { data } else { nil } }, protobuf: { [] }, encoder: encoder)
        case .metrics:
            sender.deliver(
                afterFirstAttempt: first, bodyBytes: bodyBytes, itemCount: items,
                request: { if case .metrics(let data)? = payload() { data } else { nil } }, protobuf: { [] }, encoder: encoder)
        }
    }
}

/// What `send` sent, and what became of it.
struct SendTally {
    /// The signals whose records were posted (accepted or not): the summary names their URLs.
    var signalsPosted: Set<OTLPSignal> = []
    var records = 0
    var spans = 0
    var logRecords = 0
    var metrics = 0
    var bytes = 0
    var rejectedItems = 0
    /// Data points of accepted metrics requests the collector rejected (a partial success counts them so).
    var rejectedDataPoints = 0
    var refusedRecords = 0
    var refusedItems = 0
    var retries = 0
    var emptyRecords = 0
    var resumedRecords = 0
    /// Items of requests the collector refused for their content, kept in a spool's quarantine.
    var quarantinedItems = 0
    /// Items left in a spool because sending stopped (`--spool`).
    var leftInSpool = 0
    /// Signal directories of a spool not tried because sending stopped at the other (`--spool`).
    var untried: [String] = []
    var unreachable = false
    /// Whether metrics were sent or tried: the summary counts them then, refused ones included.
    private var sawMetrics = false
    let started = Date()

    var collectorRefused: Bool { rejectedItems > 0 || rejectedDataPoints > 0 || refusedRecords > 0 || unreachable }

    mutating func accepted(items: Int, bytes: Int, signal: OTLPSignal) {
        records += 1
        switch signal {
        case .traces: spans += items
        case .logs: logRecords += items
        case .metrics:
            metrics += items
            sawMetrics = true
        }
        self.bytes += bytes
    }

    mutating func refused(items: Int, signal: OTLPSignal) {
        if signal == .metrics { sawMetrics = true }
        refusedRecords += 1
        refusedItems += items
    }

    func summary(endpoint: String) -> String {
        var text =
            "accepted \(records) records (\(spans) spans, \(logRecords) log records, \(sawMetrics ? "\(metrics) metrics, " : "")\(bytes) bytes) at \(TerminalText.escaped(endpoint))"
        let rejected = [
            rejectedItems > 0 ? "\(rejectedItems) items" : nil,
            rejectedDataPoints > 0 ? "\(rejectedDataPoints) data point\(rejectedDataPoints == 1 ? "" : "s") of metrics" : nil,
        ].compactMap { $0 }
        if !rejected.isEmpty { text += ", of which the collector rejected \(rejected.joined(separator: " and "))" }
        if refusedRecords > 0 {
            text += "; not accepted: \(refusedRecords) records (\(refusedItems) items)"
            if quarantinedItems > 0 { text += ", \(quarantinedItems) items of them kept in the spool's rejected/" }
            if unreachable { text += ", the collector unreachable or refusing; later records not sent" }
        }
        if unreachable && refusedRecords == 0 { text += "; stopped: the collector unreachable or refusing" }
        if leftInSpool > 0 { text += "; \(leftInSpool) items left in the spool, not sent" }
        if !untried.isEmpty { text += "; \(untried.joined(separator: " and ")) not tried, left in the spool" }
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
            format: "\r\u{1B}[Ksent %d records, %d items, %.1f MB, %.0f records/s", tally.records,
            tally.spans + tally.logRecords + tally.metrics,
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
