import Foundation
package import OTLPTelemetry
import OTLPWire

/// Sends a spool queue's records to the collector in order, acknowledging each in the queue only after the
/// collector answered it. Only two things remove a record: the collector accepted it, or it is damaged
/// beyond reading. What the collector's answer means for the record:
///
/// | answer | the record | counted |
/// | --- | --- | --- |
/// | 2xx | acknowledged | exported; a partial success's items `rejected` |
/// | 400 with an OTLP `Status` | moved to the quarantine (``OTLPSpoolQueue/quarantineDirectory``), acknowledged | `rejected` |
/// | 413 | split in halves, each sent; a single item of 64 KiB or more refused moves to the quarantine, a smaller one is kept | as its parts |
/// | 429, 502, 503, 504, no answer, until the sender's timeout | kept first in line | retries |
/// | anything else: 3xx, 401, 403, 404, 405, 407, 415, 431, other 4xx and 5xx, an answer that is not OTLP or not HTTP, TLS and connection failures | kept first in line | nothing |
///
/// While a record is kept, the upload is tried again after a wait that doubles up to
/// ``maxRetryWaitSeconds`` (the app's uploader), or `otlp-dump send --spool` stops with exit 3.
///
/// ``start()`` runs it on a thread of its own until ``stop(drainingWithinSeconds:)``; ``uploadNext()`` sends
/// one record from the calling thread (`otlp-dump send --spool`).
package final class OTLPSpoolUploader: @unchecked Sendable {
    /// What one call of ``uploadNext()`` did.
    package enum Step: Equatable {
        /// Nothing waits in the queue.
        case empty
        /// The first record was answered and acknowledged: `exported` items accepted, `rejected` refused (by a
        /// partial success, or in a request refused for its content), `quarantined` of them in requests kept
        /// in the quarantine.
        case acknowledged(exported: Int, rejected: Int, quarantined: Int)
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
    private let kind: OTLPSignal
    private let diagnostics: @Sendable (String) -> Void
    private let decoder = OTLPDecoder(options: OTLPSpoolQueue.readOptions)
    private var directoryName: String { OTLPDiagnostics.printable(queue.directory, maxCharacters: 256) }
    private let jsonEncoder = OTLPJSONEncoder()
    private let encoder = OTLPEncoder()
    private let state = NSCondition()
    /// When ``stop(drainingWithinSeconds:)`` must return, on the monotonic clock (a wall clock set back or
    /// ahead changes no wait).
    private var drainDeadline: ContinuousClock.Instant?
    private var isRunning = false
    private var isFinished = false
    private var lastFailureReason: String?

    /// Why the last upload failed, when the record it tried is still waiting (made printable already).
    package var lastFailure: String? { state.withLock { lastFailureReason } }

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
        kind = queue.signal
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
                    "OTLPWire spool \(directoryName): \(lost) \(kind.noun(lost)) dropped (\(OTLPDropReason.spoolDamaged)): a spool file was damaged or deleted by someone else"
                )
            }
            guard let next else { return .empty }
            record = next
        } catch {
            return .spoolError(reason: OTLPDiagnostics.printable("\(error)", maxCharacters: 512))
        }
        let items: Int, body: [UInt8], request: [UInt8]
        // A record stored gzip-compressed goes out as stored to an endpoint that compresses with gzip anyway.
        var bodyIsGzipped = false
        do throws(OTLPReadError) {
            let isCompressed = OTLPGzip.isCompressed(record.bytes)
            request = try OTLPSpoolQueue.request(ofRecord: record.bytes)
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
            diagnostics(
                "OTLPWire spool \(directoryName): the record at offset \(record.offset) of file \(record.file) is unreadable and skipped (its items are lost): \(error)"
            )
            do throws(OTLPWriteError) {
                try queue.skipDamaged(record)
            } catch {
                return .spoolError(reason: OTLPDiagnostics.printable("\(error)", maxCharacters: 512))
            }
            return .unreadable
        }
        // A request of no items (an empty record) is acknowledged without a round trip.
        guard items > 0 else { return acknowledge(record, items: 0, exported: 0, rejected: 0, quarantined: 0) }
        let first = bodyIsGzipped ? sender.send(gzipped: body) : sender.send(body)
        // Bytes as the other exporters count them: the encoded request before compression.
        let bodyBytes = sender.endpoint.protocol == .httpJSON ? body.count : request.count
        // Only a 413 needs the request decoded (to send its halves).
        let delivery =
            queue.signal == .traces
            ? sender.deliver(
                afterFirstAttempt: first, bodyBytes: bodyBytes, itemCount: items, request: { try? decoder.decodeTraces(request) },
                protobuf: { request }, encoder: encoder)
            : sender.deliver(
                afterFirstAttempt: first, bodyBytes: bodyBytes, itemCount: items, request: { try? decoder.decodeLogs(request) },
                protobuf: { request }, encoder: encoder)
        counters.retried(delivery.retries, kind)
        if let failure = delivery.failure {
            // Not delivered, and not for its content: the record stays first, whole (parts of it the collector
            // took before a split part failed are sent again with it), and nothing of it is counted yet.
            queue.abandonInFlight()
            let reason = OTLPDiagnostics.printable(failure, maxCharacters: 512)
            state.withLock { lastFailureReason = reason }
            return .failed(reason: reason)
        }
        state.withLock { lastFailureReason = nil }
        // What the collector refused for its content is set aside before the record is acknowledged.
        var quarantined = 0
        do throws(OTLPWriteError) {
            for refused in delivery.refusedRequests {
                let dropped = try queue.quarantine(refused.request, items: refused.items)
                quarantined += refused.items
                if dropped > 0 {
                    diagnostics(
                        "OTLPWire spool \(directoryName): the quarantine is over its \(queue.quarantineMaxBytes) bytes: its oldest files, \(dropped) \(kind.noun(dropped)) refused earlier, were deleted"
                    )
                }
            }
        } catch {
            queue.abandonInFlight()
            return .spoolError(reason: "cannot set aside a refused record: \(OTLPDiagnostics.printable("\(error)", maxCharacters: 512))")
        }
        counters.exported(delivery.acceptedItems, kind, bytes: delivery.acceptedBytes)
        counters.dropped(delivery.rejectedItems, kind, .rejected)
        for message in delivery.messages {
            diagnostics("OTLPWire spool: \(sender.endpoint.redactedURL) \(OTLPDiagnostics.printable(message, maxCharacters: 512))")
        }
        if quarantined > 0 {
            diagnostics(
                "OTLPWire spool: \(quarantined) \(kind.noun(quarantined)) refused by the collector (\(OTLPDropReason.rejected)) kept in \(OTLPDiagnostics.printable(queue.quarantineDirectory, maxCharacters: 256))"
            )
        }
        return acknowledge(
            record, items: items, exported: delivery.acceptedItems, rejected: delivery.rejectedItems, quarantined: quarantined)
    }

    private func acknowledge(_ record: OTLPSpoolQueue.Record, items: Int, exported: Int, rejected: Int, quarantined: Int) -> Step {
        do throws(OTLPWriteError) {
            try queue.acknowledge(record, items: items)
        } catch {
            // Delivered, but the checkpoint is not durable: after a crash this record may be sent again.
            diagnostics(
                "OTLPWire spool \(directoryName): \(OTLPDiagnostics.printable("\(error)", maxCharacters: 512)); a record may be sent again after a restart"
            )
        }
        return .acknowledged(exported: exported, rejected: rejected, quarantined: quarantined)
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
            drainDeadline = .now + .seconds(max(0, min(seconds, 86_400)))
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
            if let deadline, ContinuousClock.now >= deadline { break }
            let step = uploadNext()
            switch step {
            case .empty:
                if deadline != nil { break loop }
                _ = queue.waitForRecords(withinSeconds: 60)
            case .acknowledged, .unreadable:
                if outageReported {
                    diagnostics("OTLPWire spool: \(sender.endpoint.redactedURL) answers again; uploading \(directoryName)")
                }
                failures = 0
                outageReported = false
            case .failed(let reason), .spoolError(let reason):
                let isSpoolError: Bool
                if case .spoolError = step { isSpoolError = true } else { isSpoolError = false }
                if isSpoolError { state.withLock { lastFailureReason = "the spool: \(reason)" } }
                if deadline != nil { break loop }
                failures += 1
                let policy = sender.retryPolicy
                let doubled = policy.initialBackoffSeconds * pow(2, Double(min(failures - 1, 30)))
                let wait = min(maxRetryWaitSeconds, doubled) * (1 - policy.jitterFraction * Double.random(in: 0...1))
                if !outageReported {
                    let cause = isSpoolError ? "a spool error (\(reason))" : "cannot deliver to \(sender.endpoint.redactedURL) (\(reason))"
                    diagnostics(
                        "OTLPWire spool: \(cause); \(queue.pendingItems) \(kind.noun(queue.pendingItems)) kept in \(directoryName), trying again in \(Int(wait.rounded(.up))) s"
                    )
                    outageReported = true
                }
                state.withLock {
                    // Measured on the monotonic clock (a wall clock set back does not stretch the wait).
                    let end = ContinuousClock.now + .seconds(max(0, min(wait, 86_400)))
                    while drainDeadline == nil, ContinuousClock.now < end { _ = state.wait(until: end) }
                }
            }
        }
        state.withLock {
            isFinished = true
            state.broadcast()
        }
    }
}
