import Foundation
package import OTLPTelemetry
package import OTLPWire

/// Store and forward: writes every batch to a spool directory first (u32be-framed `Export*ServiceRequest`s,
/// gzip-compressed if `OTLPSpoolConfiguration.gzip` says so) and uploads from there on a thread of its own, so
/// that nothing is lost while the collector is unreachable or refuses to talk, and nothing written is lost
/// when the process crashes or is killed.
///
/// - The caller (the batch stage's worker) waits only for the disk write.
/// - A batch is one record, or several when it is over the spool's record limit (an eighth of `maxBytes`,
///   from 32 KiB to 16 MiB); a single item over the limit is dropped (`item_too_large`).
/// - Records are sent in order, each acknowledged in a durable checkpoint after the collector answered it;
///   a file is deleted when all its records are acknowledged. After a crash the next exporter on the same
///   directory resumes from the checkpoint: at most the record in flight is sent again.
/// - Only two things remove a record: the collector accepted it, or it is damaged beyond reading. A record
///   the collector refuses for its content (400 with an OTLP `Status`; 413 for a single item after splitting)
///   moves to the quarantine `rejected/` inside the signal's directory (counted `rejected`). Any other
///   failure (no answer, 401, 403, 404, a redirect, a 5xx, an answer that is not OTLP) keeps the record
///   first in line, and the upload is tried again after waits that double up to 5 minutes. The table of
///   answers is in <doc:TheSpool>.
/// - The directory is bounded by `OTLPSpoolConfiguration.maxBytes`: past it the oldest file is deleted and
///   its items counted as dropped (`spool_full`). Its files stay within `maxBytes`, or two files of an
///   eighth of it (at least 32 KiB each) when `maxBytes` is smaller than that.
/// - ``shutdown()`` uploads what it can within the endpoint's timeout and leaves the rest for the next start.
/// - One process per directory: a second exporter gets ``openError`` (naming the holder) and counts its
///   items as dropped (`write_failed`).
///
/// Counting (`counters`): items spooled are not yet exported; they are counted exported when the collector
/// accepted them. Items an earlier process left in the spool are counted as received when the exporter
/// starts, so that received = exported + dropped + ``pendingItems`` holds.
package final class OTLPSpoolExporter<Item: OTLPExportable>: OTLPExporter, @unchecked Sendable {
    /// Where, how and for how long requests are sent, and the spool.
    package let endpoint: OTLPExporterConfiguration.Resolved
    /// The resource every request is written under.
    package let resource: OTLPResource
    /// Where delivered and dropped items are counted.
    package let counters: OTLPTelemetryCounters
    /// Why the spool could not be opened (another process holds it, the directory cannot be created), or
    /// `nil`. Without a spool, every item is dropped (`write_failed`).
    package let openError: OTLPWriteError?
    private let queue: OTLPSpoolQueue?
    /// Whether records are stored gzip-compressed.
    private let gzipRecords: Bool
    private let zstdRecords: Bool
    /// The compression level (zlib's scale) of gzip records.
    private let gzipLevel: Int32
    private let uploader: OTLPSpoolUploader?
    private let sender: OTLPHTTPSender
    private let diagnostics: @Sendable (String) -> Void
    private let lock = NSLock()
    private let encoder = OTLPEncoder()
    private var isShutDown = false
    private var shutdownDeadline: Date?

    /// - Parameters:
    ///   - endpoint: the resolved `otlp` settings of the items' signal, with its `OTLPExporterConfiguration.Resolved.spool`.
    ///   - spool: the spool of this signal (default: the endpoint's; an endpoint without one spools nothing
    ///     and reports it as ``openError``).
    ///   - resource: the resource every request is written under.
    ///   - counters: where delivered and dropped items are counted (default: counters of its own).
    ///   - retryPolicy: waits between attempts of one upload; default ``OTLPHTTPRetryPolicy/default``.
    ///   - diagnostics: where outages, refusals and drops are reported (default: standard error).
    package init(
        endpoint: OTLPExporterConfiguration.Resolved, spool: OTLPSpoolConfiguration? = nil, resource: OTLPResource,
        counters: OTLPTelemetryCounters = OTLPTelemetryCounters(), retryPolicy: OTLPHTTPRetryPolicy = .default,
        diagnostics: @escaping @Sendable (String) -> Void = OTLPDiagnostics.standardError
    ) {
        self.endpoint = endpoint
        self.resource = resource
        self.counters = counters
        self.diagnostics = diagnostics
        sender = OTLPHTTPSender(signal: Item.signal, endpoint: endpoint, retryPolicy: retryPolicy)
        var queue: OTLPSpoolQueue?
        var openError: OTLPWriteError?
        gzipRecords = (spool ?? endpoint.spool)?.gzip ?? false
        zstdRecords = (spool ?? endpoint.spool)?.zstd ?? false
        gzipLevel = Int32((spool ?? endpoint.spool)?.clamped.gzipLevel ?? OTLPGzip.defaultLevel)
        if let spool = spool ?? endpoint.spool {
            do throws(OTLPWriteError) {
                queue = try OTLPSpoolQueue(
                    directory: spool.directory, signal: Item.signal, maxBytes: spool.maxBytes, durability: spool.durability ?? .flush)
            } catch {
                openError = error
            }
        } else {
            openError = .io("no spool directory given")
        }
        self.queue = queue
        self.openError = openError
        if let openError {
            diagnostics(
                "OTLPWire spool: \(Self.printable("\(openError)")); \(Item.signal == .traces ? "spans" : "log records") are dropped (\(OTLPDropReason.writeFailed))"
            )
        }
        if let queue {
            if queue.recoveredItems > 0 {
                counters.received(queue.recoveredItems, Item.signal)
                diagnostics(
                    "OTLPWire spool: \(queue.recoveredItems) \(Item.signal.noun(queue.recoveredItems)) left in \(Self.printable(queue.directory)) by an earlier run are uploaded first"
                )
            }
            if queue.isCheckpointDistrusted {
                diagnostics(
                    "OTLPWire spool: the checkpoint of \(Self.printable(queue.directory)) does not match its files; every record in it is sent (some may arrive twice)"
                )
            }
            if queue.damagedRecords > 0 {
                diagnostics(
                    "OTLPWire spool: \(queue.damagedRecords) torn record(s) cut off the end of a file in \(Self.printable(queue.directory)) left open by a crash"
                )
            }
            let uploader = OTLPSpoolUploader(queue: queue, sender: sender, counters: counters, diagnostics: diagnostics)
            self.uploader = uploader
            uploader.start()
        } else {
            uploader = nil
        }
    }

    /// Items in the spool, not yet acknowledged by the collector.
    package var pendingItems: Int { queue?.pendingItems ?? 0 }

    /// Records torn by a crash (or otherwise unreadable) found in the spool and skipped since it was opened.
    package var damagedRecords: Int { queue?.damagedRecords ?? 0 }

    /// Writes `items` to the spool as one record; returns whether they were written (their upload follows).
    @discardableResult
    package func export(_ items: [Item]) -> Bool {
        guard !items.isEmpty else { return true }
        return lock.withLock {
            let kind = Item.signal
            guard !isShutDown else {
                counters.dropped(items.count, kind, .shutDown)
                return false
            }
            guard let queue else {
                counters.dropped(items.count, kind, .writeFailed)
                counters.writeFailed(bytes: 0)
                return false
            }
            let encodable = Item.droppingTooDeeplyNested(items, counters: counters, reporter: "OTLPWire spool", diagnostics: diagnostics)
            var complete = items.count == encodable.count
            guard !encodable.isEmpty else { return false }
            // A batch over the spool's record limit is split into records that fit; a single item over it is
            // dropped and counted (regression: the whole batch was dropped as write_failed).
            var requests: [(bytes: [UInt8], items: Int, range: Range<Int>)] = []
            var oversized = 0
            split(encodable[...], limit: queue.maxAppendBytes, into: &requests, oversized: &oversized)
            if oversized > 0 {
                complete = false
                counters.dropped(oversized, kind, .itemTooLarge)
                diagnostics(
                    "OTLPWire spool: \(oversized) \(kind.noun(oversized)) dropped (\(OTLPDropReason.itemTooLarge)): each alone is over the spool's \(queue.maxAppendBytes)-byte record limit (an eighth of maxBytes, from 32 KiB to 16 MiB)"
                )
            }
            for (index, request) in requests.enumerated() {
                var record = request.bytes
                do throws(OTLPWriteError) {
                    if gzipRecords || zstdRecords {
                        let compressed = try request.bytes.withUnsafeBytes { bytes in
                            Result { () throws(OTLPWriteError) in
                                zstdRecords ? try OTLPZstd.compress(bytes) : try OTLPGzip.compress(bytes, level: gzipLevel)
                            }
                        }.get()
                        // Data that does not compress is stored plain rather than grown past the record limit.
                        if compressed.count <= request.bytes.count { record = compressed }
                    }
                    // Journaled spans: the journal is told where the record goes before it is written, and that
                    // it was written after (the export stage acknowledges the batch).
                    let journaled = OTLPSpanJournal.journaledSpans(encodable[request.range])
                    let dropped = try queue.append(
                        record, items: request.items,
                        beforeWriting: journaled.isEmpty ? nil : { OTLPSpanJournal.markExporting(journaled, to: $0) })
                    if dropped > 0 {
                        counters.dropped(dropped, kind, .spoolFull)
                        diagnostics(
                            "OTLPWire spool: \(dropped) \(kind.noun(dropped)) dropped (\(OTLPDropReason.spoolFull)): \(Self.printable(queue.directory)) is over its \(queue.maxBytes) bytes"
                        )
                    }
                } catch {
                    // Nothing of the failed record reached the disk (the queue cuts a failed write back).
                    let failed = requests[index...].reduce(0) { $0 + $1.items }
                    counters.dropped(failed, kind, .writeFailed)
                    counters.writeFailed(bytes: 0)
                    diagnostics(
                        "OTLPWire spool: \(failed) \(kind.noun(failed)) dropped (\(OTLPDropReason.writeFailed)): \(Self.printable("\(error)"))"
                    )
                    return false
                }
            }
            return complete
        }
    }

    /// Encodes `part` as one request if it fits in `limit` bytes, else its halves (recursively); a single
    /// item that does not fit is counted in `oversized`.
    private func split(
        _ part: ArraySlice<Item>, limit: Int, into requests: inout [(bytes: [UInt8], items: Int, range: Range<Int>)], oversized: inout Int
    ) {
        let bytes = encoder.withEncoded(Item.request(Array(part), resource: resource)) { Array($0) }
        if bytes.count <= limit {
            requests.append((bytes, part.count, part.startIndex..<part.endIndex))
            return
        }
        guard part.count > 1 else {
            oversized += 1
            return
        }
        let middle = part.startIndex + part.count / 2
        split(part[..<middle], limit: limit, into: &requests, oversized: &oversized)
        split(part[middle...], limit: limit, into: &requests, oversized: &oversized)
    }

    /// Outside text (a path, a system error naming one) as one safe diagnostic line.
    private static func printable(_ text: String) -> String { OTLPDiagnostics.printable(text, maxCharacters: 512) }

    /// Everything exported is in the spool already, as durable as its durability says.
    package func forceFlush() {}

    /// Shutdown must end `seconds` from now: the final upload stops there.
    package func prepareForShutdown(withinSeconds seconds: Double) {
        lock.withLock { shutdownDeadline = Date(timeIntervalSinceNow: seconds) }
        sender.stopRetrying(afterSeconds: min(seconds, endpoint.timeoutSeconds))
    }

    /// Uploads what it can within the endpoint's timeout (or the deadline ``prepareForShutdown(withinSeconds:)``
    /// gave), then closes the spool and releases its lock; what is left waits there for the next start.
    package func shutdown() {
        let deadline: Date? = lock.withLock {
            guard !isShutDown else { return nil }
            isShutDown = true
            return min(shutdownDeadline ?? .distantFuture, Date(timeIntervalSinceNow: endpoint.timeoutSeconds))
        }
        guard let deadline else { return }
        uploader?.stop(drainingWithinSeconds: deadline.timeIntervalSinceNow)
        if let queue {
            queue.release()
            // Sealing the last file may have found items lost to unreadable records in it.
            let lost = queue.takeLostItems()
            if lost > 0 { counters.dropped(lost, Item.signal, .spoolDamaged) }
            let left = queue.pendingItems
            if left > 0 {
                let why = uploader?.lastFailure.map { " (the last upload to \(endpoint.redactedURL): \($0))" } ?? ""
                diagnostics(
                    "OTLPWire spool: \(left) \(Item.signal.noun(left)) left in \(Self.printable(queue.directory)) for the next start\(why)")
            }
        }
        sender.shutdown()
    }
}

extension OTLPSpoolExporter: OTLPSpanJournalDestination {
    /// The spool destination.
    package var journalDestinationKind: OTLPExportDestination.Kind? { .spool }
}

extension OTLPSpoolExporter: OTLPExportDestinationChecking {
    /// Whether a record an earlier process announced to its span journal got into this spool (`nil` when the
    /// destination is not this spool's).
    package func holds(_ destination: OTLPExportDestination) -> Bool? {
        guard destination.kind == .spool, let queue, destination.path == queue.directory else { return nil }
        return queue.holds(destination)
    }
}
