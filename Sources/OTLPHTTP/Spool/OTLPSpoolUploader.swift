import Foundation
package import OTLPTelemetry
import OTLPWire

/// Sends a spool queue's records to the collector in order, acknowledging each in the queue only after the
/// collector answered it: a record accepted (wholly or partly) or refused for good (a 400, say) is
/// acknowledged and counted; a record that could not be delivered (no answer, 429, 502, 503, 504 until the
/// sender's timeout) stays first in line and is tried again after a wait that doubles up to
/// ``maxRetryWaitSeconds``.
///
/// ``start()`` runs it on a thread of its own until ``stop(drainingWithinSeconds:)``; ``uploadNext()`` sends
/// one record from the calling thread (`otlp-dump send --spool`).
package final class OTLPSpoolUploader: @unchecked Sendable {
    /// What one call of ``uploadNext()`` did.
    package enum Step: Equatable {
        /// Nothing waits in the queue.
        case empty
        /// The first record was answered and acknowledged: `exported` items accepted, `dropped` rejected by
        /// a partial success.
        case acknowledged(exported: Int, dropped: Int)
        /// The first record was refused for good (a status that is not retried): `items` dropped, and
        /// acknowledged so that the next one goes out.
        case refused(items: Int)
        /// The first record could not be read back (damaged on disk): skipped.
        case unreadable
        /// The spool could not be read (a file system error); `reason` says why. Nothing was sent.
        case spoolError(reason: String)
        /// The first record could not be delivered (it stays first); `reason` says why.
        case failed(reason: String)
    }

    /// The queue uploaded.
    package let queue: OTLPSpoolQueue
    /// Longest wait between tries while the collector cannot be reached.
    package let maxRetryWaitSeconds: Double
    private let sender: OTLPHTTPSender
    private let counters: OTLPTelemetryCounters
    private let kind: OTLPItemKind
    private let diagnostics: @Sendable (String) -> Void
    private let decoder = OTLPDecoder(options: OTLPSpoolQueue.readOptions)
    private var directoryName: String { OTLPDiagnostics.printable(queue.directory, maxCharacters: 256) }
    private let jsonEncoder = OTLPJSONEncoder()
    private let state = NSCondition()
    private var drainDeadline: Date?
    private var isRunning = false
    private var isFinished = false

    /// - Parameters:
    ///   - queue: the records to send.
    ///   - sender: posts them (its endpoint says protobuf or JSON; records are protobuf, plain or gzip-compressed,
    ///     decompressed and re-encoded as needed).
    ///   - counters: where delivered and refused items and retries are counted.
    ///   - maxRetryWaitSeconds: longest wait between tries while the collector cannot be reached (5 minutes).
    ///   - diagnostics: where outages, refusals and damaged records are reported.
    package init(
        queue: OTLPSpoolQueue, sender: OTLPHTTPSender, counters: OTLPTelemetryCounters, maxRetryWaitSeconds: Double = 300,
        diagnostics: @escaping @Sendable (String) -> Void
    ) {
        self.queue = queue
        self.sender = sender
        self.counters = counters
        kind = queue.signal == .traces ? .span : .logRecord
        self.maxRetryWaitSeconds = maxRetryWaitSeconds
        self.diagnostics = diagnostics
    }

    /// Sends the first record waiting, and acknowledges it once the collector answered it.
    package func uploadNext() -> Step {
        let record: OTLPSpoolQueue.Record
        do throws(OTLPWriteError) {
            let next = try queue.next()
            let lost = queue.takeLostItems()
            if lost > 0 {
                counters.dropped(lost, kind, .spoolDamaged)
                diagnostics(
                    "OTLP spool \(directoryName): \(lost) \(kind.noun(lost)) dropped (\(OTLPDropReason.spoolDamaged)): a spool file was damaged or deleted by someone else")
            }
            guard let next else { return .empty }
            record = next
        } catch {
            return .spoolError(reason: OTLPDiagnostics.printable("\(error)", maxCharacters: 512))
        }
        let items: Int, body: [UInt8], requestBytes: Int
        // A record stored gzip-compressed goes out as stored to an endpoint that compresses with gzip anyway.
        var bodyIsGzipped = false
        do throws(OTLPReadError) {
            let isCompressed = OTLPGzip.isCompressed(record.bytes)
            let request = try OTLPSpoolQueue.request(ofRecord: record.bytes)
            requestBytes = request.count
            if sender.endpoint.protocol == .httpJSON {
                // Decoded once: the JSON body and the item count both come from it.
                let payload: OTLPPayload =
                    queue.signal == .traces ? .traces(try decoder.decodeTraces(request)) : .logs(try decoder.decodeLogs(request))
                (items, body) = (payload.itemCount, jsonEncoder.encode(payload))
            } else {
                // Sent as stored; checked as decoding would check it, for its item count.
                items = try request.withUnsafeBytes { bytes in
                    Result { () throws(OTLPReadError) in try decoder.check(bytes, as: queue.signal) }
                }.get()
                bodyIsGzipped = isCompressed && sender.endpoint.compression == .gzip
                body = bodyIsGzipped ? record.bytes : request
            }
        } catch {
            // Not a request we could have written (damaged on disk): skipped; its items are unknown.
            diagnostics("OTLP spool \(directoryName): the record at offset \(record.offset) of file \(record.file) is unreadable and skipped (its items are lost): \(error)")
            queue.noteDamagedRecord()
            _ = acknowledge(record, items: 0, exported: 0, dropped: 0)
            return .unreadable
        }
        // A request of no items (an empty record) is acknowledged without a round trip.
        guard items > 0 else { return acknowledge(record, items: 0, exported: 0, dropped: 0) }
        let result = bodyIsGzipped ? sender.send(gzipped: body) : sender.send(body)
        counters.retried(max(0, result.attempts - 1), kind)
        switch result.outcome {
        case .accepted(let rejectedItems, let message):
            let rejected = Int(clamping: min(max(rejectedItems, 0), Int64(items)))
            // Bytes as the other exporters count them: the encoded request before compression.
            counters.exported(items - rejected, kind, bytes: sender.endpoint.protocol == .httpJSON ? body.count : requestBytes)
            counters.dropped(rejected, kind, .rejected)
            if rejected > 0 || !message.isEmpty {
                diagnostics(
                    "OTLP spool: \(sender.endpoint.url.absoluteString) accepted a request\(rejected > 0 ? " partly: \(rejected) \(kind.noun(rejected)) rejected" : "")\(message.isEmpty ? "" : ": \(OTLPDiagnostics.printable(message, maxCharacters: 512))")")
            }
            return acknowledge(record, items: items, exported: items - rejected, dropped: rejected)
        case .refused(let statusCode, let message):
            counters.dropped(items, kind, .exportFailed)
            diagnostics(
                "OTLP spool: \(items) \(kind.noun(items)) dropped (\(OTLPDropReason.exportFailed)): \(sender.endpoint.url.absoluteString) answered HTTP \(statusCode)\(message.isEmpty ? "" : ": \(OTLPDiagnostics.printable(message, maxCharacters: 512))")")
            _ = acknowledge(record, items: items, exported: 0, dropped: items)
            return .refused(items: items)
        case .failed(let reason):
            queue.abandonInFlight()
            return .failed(reason: OTLPDiagnostics.printable(reason, maxCharacters: 512))
        }
    }

    private func acknowledge(_ record: OTLPSpoolQueue.Record, items: Int, exported: Int, dropped: Int) -> Step {
        do throws(OTLPWriteError) {
            try queue.acknowledge(record, items: items)
        } catch {
            // Delivered, but the checkpoint is not durable: after a crash this record may be sent again.
            diagnostics("OTLP spool \(directoryName): \(OTLPDiagnostics.printable("\(error)", maxCharacters: 512)); a record may be sent again after a restart")
        }
        return .acknowledged(exported: exported, dropped: dropped)
    }

    // MARK: Running in the background

    /// Uploads on a thread of its own: every record appended is sent as soon as the one before it was
    /// answered; while the collector cannot be reached, tries again after 1 s, 2 s, 4 s, ... up to
    /// ``maxRetryWaitSeconds``.
    package func start() {
        state.withLock {
            guard !isRunning else { return }
            isRunning = true
        }
        let thread = Thread { [self] in run() }
        thread.name = "OTLPSpoolUploader \(queue.signal)"
        thread.start()
    }

    /// Keeps uploading for at most `seconds` (until the queue is empty or the collector fails to answer),
    /// then stops the thread and returns; what is left stays in the spool for the next start.
    package func stop(drainingWithinSeconds seconds: Double) {
        let started = state.withLock { () -> Bool in
            drainDeadline = Date(timeIntervalSinceNow: max(0, seconds))
            state.broadcast()
            return isRunning
        }
        sender.stopRetrying(afterSeconds: max(0, seconds))
        queue.wake()
        guard started else { return }
        state.withLock {
            while !isFinished { state.wait() }
        }
    }

    private func run() {
        var failures = 0
        var outageReported = false
        loop: while true {
            let deadline = state.withLock { drainDeadline }
            if let deadline, Date() >= deadline { break }
            switch uploadNext() {
            case .empty:
                if deadline != nil { break loop }
                _ = queue.waitForRecords(withinSeconds: 60)
            case .acknowledged, .refused, .unreadable:
                if outageReported {
                    diagnostics("OTLP spool: \(sender.endpoint.url.absoluteString) answers again; uploading \(directoryName)")
                }
                failures = 0
                outageReported = false
            case .failed(let reason), .spoolError(let reason):
                if deadline != nil { break loop }
                failures += 1
                let policy = sender.retryPolicy
                let doubled = policy.initialBackoffSeconds * pow(2, Double(min(failures - 1, 30)))
                let wait = min(maxRetryWaitSeconds, doubled) * (1 - policy.jitterFraction * Double.random(in: 0...1))
                if !outageReported {
                    diagnostics(
                        "OTLP spool: cannot deliver to \(sender.endpoint.url.absoluteString) (\(reason)); \(queue.pendingItems) \(kind.noun(queue.pendingItems)) kept in \(directoryName), trying again in \(Int(wait.rounded(.up))) s")
                    outageReported = true
                }
                state.withLock {
                    let until = Date(timeIntervalSinceNow: wait)
                    while drainDeadline == nil, state.wait(until: until) {}
                }
            }
        }
        state.withLock {
            isFinished = true
            state.broadcast()
        }
    }
}
