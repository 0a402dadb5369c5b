import Foundation
public import OTLPTelemetry
public import OTLPWire

/// Store and forward: writes every batch to a spool directory first (one u32be-framed `Export*ServiceRequest`
/// per batch, gzip-compressed if `OTLPSpoolConfiguration.gzip` says so) and uploads from there on a thread of its own, so that nothing is lost while the collector is
/// unreachable, and nothing written is lost when the process crashes or is killed.
///
/// - The caller (the batch processor's worker) waits only for the disk write.
/// - Records are sent in order, each acknowledged in a durable checkpoint after the collector answered it;
///   a file is deleted when all its records are acknowledged. After a crash the next exporter on the same
///   directory resumes from the checkpoint: at most the record in flight is sent again.
/// - While the collector cannot be reached the data waits, and the upload is tried again after waits that
///   double up to 5 minutes.
/// - The directory is bounded by `OTLPSpoolConfiguration.maxBytes`: past it the oldest file is deleted and
///   its items counted as dropped (`spool_full`).
/// - ``shutdown()`` uploads what it can within the endpoint's timeout and leaves the rest for the next start.
/// - One process per directory: a second exporter gets ``openError`` (naming the holder) and counts its
///   items as dropped (`write_failed`).
///
/// Counting (`counters`): items spooled are not yet exported; they are counted exported when the collector
/// accepted them. Items an earlier process left in the spool are counted as received when the exporter
/// starts, so that received = exported + dropped + ``pendingItems`` holds.
public final class OTLPSpoolExporter<Item: OTLPExportable>: OTLPExporter, @unchecked Sendable {
    /// Where, how and for how long requests are sent, and the spool.
    public let endpoint: OTLPExporterConfiguration.Resolved
    /// The resource every request is written under.
    public let resource: OTLPResource
    /// Where delivered and dropped items are counted.
    public let counters: OTLPTelemetryCounters
    /// Why the spool could not be opened (another process holds it, the directory cannot be created), or
    /// `nil`. Without a spool, every item is dropped (`write_failed`).
    public let openError: OTLPWriteError?
    private let queue: OTLPSpoolQueue?
    /// Whether records are stored gzip-compressed.
    private let gzipRecords: Bool
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
    public init(
        endpoint: OTLPExporterConfiguration.Resolved, spool: OTLPSpoolConfiguration? = nil, resource: OTLPResource,
        counters: OTLPTelemetryCounters = OTLPTelemetryCounters(), retryPolicy: OTLPHTTPRetryPolicy = .default,
        diagnostics: @escaping @Sendable (String) -> Void = OTLPDiagnostics.standardError
    ) {
        self.endpoint = endpoint
        self.resource = resource
        self.counters = counters
        self.diagnostics = diagnostics
        sender = OTLPHTTPSender(signal: Item.kind.signal, endpoint: endpoint, retryPolicy: retryPolicy)
        var queue: OTLPSpoolQueue?
        var openError: OTLPWriteError?
        gzipRecords = (spool ?? endpoint.spool)?.gzip ?? false
        if let spool = spool ?? endpoint.spool {
            do throws(OTLPWriteError) {
                queue = try OTLPSpoolQueue(
                    directory: spool.directory, signal: Item.kind.signal, maxBytes: spool.maxBytes, durability: spool.durability ?? .flush)
            } catch {
                openError = error
            }
        } else {
            openError = .io("no spool directory given")
        }
        self.queue = queue
        self.openError = openError
        if let openError {
            diagnostics("OTLP spool: \(Self.printable("\(openError)")); \(Item.kind == .span ? "spans" : "log records") are dropped (\(OTLPDropReason.writeFailed))")
        }
        if let queue {
            if queue.recoveredItems > 0 {
                counters.received(queue.recoveredItems, Item.kind)
                diagnostics(
                    "OTLP spool: \(queue.recoveredItems) \(Item.kind.noun(queue.recoveredItems)) left in \(Self.printable(queue.directory)) by an earlier run are uploaded first")
            }
            if queue.isCheckpointDistrusted {
                diagnostics("OTLP spool: the checkpoint of \(Self.printable(queue.directory)) does not match its files; every record in it is sent (some may arrive twice)")
            }
            if queue.damagedRecords > 0 {
                diagnostics("OTLP spool: \(queue.damagedRecords) torn record(s) at the end of \(Self.printable(queue.directory))'s files skipped (a crash while writing)")
            }
            let uploader = OTLPSpoolUploader(queue: queue, sender: sender, counters: counters, diagnostics: diagnostics)
            self.uploader = uploader
            uploader.start()
        } else {
            uploader = nil
        }
    }

    /// Items in the spool, not yet acknowledged by the collector.
    public var pendingItems: Int { queue?.pendingItems ?? 0 }

    /// Records torn by a crash (or otherwise unreadable) found in the spool and skipped since it was opened.
    public var damagedRecords: Int { queue?.damagedRecords ?? 0 }

    /// Writes `items` to the spool as one record; returns whether they were written (their upload follows).
    @discardableResult
    public func export(_ items: [Item]) -> Bool {
        guard !items.isEmpty else { return true }
        return lock.withLock {
            let kind = Item.kind
            guard !isShutDown else {
                counters.dropped(items.count, kind, .shutDown)
                return false
            }
            guard let queue else {
                counters.dropped(items.count, kind, .writeFailed)
                counters.writeFailed(bytes: 0)
                return false
            }
            let encodable = Item.droppingTooDeeplyNested(items, counters: counters, reporter: "OTLP spool", diagnostics: diagnostics)
            let tooLarge = items.count - encodable.count
            guard !encodable.isEmpty else { return false }
            let request = encoder.withEncoded(Item.request(encodable, resource: resource)) { Array($0) }
            var record = request
            do throws(OTLPWriteError) {
                // The same limit for a gzip record's content as for a plain record: the uploader reads it back.
                if gzipRecords, request.count <= OTLPSpoolQueue.maxRecordBytes {
                    let compressed = try request.withUnsafeBytes { bytes in
                        Result { () throws(OTLPWriteError) in try OTLPGzip.compress(bytes) }
                    }.get()
                    // Data that does not compress is stored plain rather than grown past the record limit.
                    if compressed.count <= OTLPSpoolQueue.maxRecordBytes { record = compressed }
                }
                let dropped = try queue.append(record, items: encodable.count)
                if dropped > 0 {
                    counters.dropped(dropped, kind, .spoolFull)
                    diagnostics(
                        "OTLP spool: \(dropped) \(kind.noun(dropped)) dropped (\(OTLPDropReason.spoolFull)): \(Self.printable(queue.directory)) is over its \(queue.maxBytes) bytes")
                }
                return tooLarge == 0
            } catch {
                counters.dropped(encodable.count, kind, .writeFailed)
                counters.writeFailed(bytes: record.count)
                diagnostics("OTLP spool: \(encodable.count) \(kind.noun(encodable.count)) dropped (\(OTLPDropReason.writeFailed)): \(Self.printable("\(error)"))")
                return false
            }
        }
    }

    /// Outside text (a path, a system error naming one) as one safe diagnostic line.
    private static func printable(_ text: String) -> String { OTLPDiagnostics.printable(text, maxCharacters: 512) }

    /// Everything exported is in the spool already, as durable as its durability says.
    public func forceFlush() {}

    /// Shutdown must end `seconds` from now: the final upload stops there.
    public func prepareForShutdown(withinSeconds seconds: Double) {
        lock.withLock { shutdownDeadline = Date(timeIntervalSinceNow: seconds) }
        sender.stopRetrying(afterSeconds: min(seconds, endpoint.timeoutSeconds))
    }

    /// Uploads what it can within the endpoint's timeout (or the deadline ``prepareForShutdown(withinSeconds:)``
    /// gave), then closes the spool and releases its lock; what is left waits there for the next start.
    public func shutdown() {
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
            if lost > 0 { counters.dropped(lost, Item.kind, .spoolDamaged) }
            let left = queue.pendingItems
            if left > 0 {
                diagnostics("OTLP spool: \(left) \(Item.kind.noun(left)) left in \(Self.printable(queue.directory)) for the next start")
            }
        }
        sender.shutdown()
    }
}
