package import OTLPWire
import Foundation

/// Why an item was dropped instead of exported.
public enum OTLPDropReason: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The batching queue was full.
    case queueFull = "queue_full"
    /// The exporter could not write the batch (disk full, read-only file system, closed pipe).
    case writeFailed = "write_failed"
    /// The item arrived after shutdown.
    case shutDown = "shut_down"
    /// A rotated file holding the item was deleted by the retention policy.
    case retention
    /// The signal has no output configured.
    case disabled
    /// The item alone would make a record that readers with their default limits refuse (over the record
    /// size or decoded memory limit, nesting too deep, too many attributes), so it was left out of its batch;
    /// the rest of the batch was exported.
    case itemTooLarge = "item_too_large"
    /// The collector refused these items: an OTLP partial success named them, or it refused their request
    /// for its content (400 with an OTLP `Status`) or as too large alone (413). A spool keeps such requests
    /// in its quarantine.
    case rejected
    /// The request was not delivered, and there was no spool to keep it: the collector could not be reached
    /// or kept answering with retryable statuses (429, 502, 503, 504) until the export timeout ran out, or
    /// answered as no OTLP endpoint would (401, 403, 404, a redirect, a 5xx, an answer that is not OTLP).
    case exportFailed = "export_failed"
    /// The spool (store and forward) was over its size limit: the oldest file waiting for upload was deleted.
    case spoolFull = "spool_full"
    /// A spool file could not be read back (damaged on disk, or deleted by someone else): the items after the
    /// damage were lost.
    case spoolDamaged = "spool_damaged"

    public var description: String { rawValue }
}

/// Counts what the pipeline received, exported and dropped. Thread-safe; read it at any time.
public final class OTLPTelemetryCounters: @unchecked Sendable {
    /// A consistent copy of the counters.
    public struct Snapshot: Sendable, Equatable, CustomStringConvertible {
        /// Spans handed to the pipeline (ended and sampled, or adopted).
        public var spansReceived = 0
        /// Spans written to an output (for a collector: accepted by it, partial-success rejections excepted).
        public var spansExported = 0
        /// Spans dropped, by reason.
        public var spansDropped: [OTLPDropReason: Int] = [:]
        /// Log records handed to the pipeline (emitted).
        public var logRecordsReceived = 0
        /// Log records written to an output (for a collector: accepted by it, partial-success rejections excepted).
        public var logRecordsExported = 0
        /// Log records dropped, by reason.
        public var logRecordsDropped: [OTLPDropReason: Int] = [:]
        /// Bytes of records written to the outputs (for a collector: request bodies accepted, as sent).
        public var bytesWritten = 0
        /// Batch writes that failed (their items are counted as dropped, `write_failed`).
        public var writeErrors = 0
        /// Requests of spans sent to a collector again after a retryable answer or a connection failure.
        public var spanExportRetries = 0
        /// Requests of log records sent to a collector again after a retryable answer or a connection failure.
        public var logRecordExportRetries = 0

        /// Spans dropped, whatever the reason.
        public var totalSpansDropped: Int { spansDropped.values.reduce(0, +) }
        /// Log records dropped, whatever the reason.
        public var totalLogRecordsDropped: Int { logRecordsDropped.values.reduce(0, +) }

        public var description: String {
            func drops(_ d: [OTLPDropReason: Int]) -> String {
                d.isEmpty ? "0" : d.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            }
            return "spans: \(spansReceived) received, \(spansExported) exported, dropped \(drops(spansDropped)); "
                + "log records: \(logRecordsReceived) received, \(logRecordsExported) exported, dropped \(drops(logRecordsDropped)); "
                + "\(bytesWritten) bytes written, \(writeErrors) write errors"
                + (spanExportRetries + logRecordExportRetries > 0
                    ? "; export retries: \(spanExportRetries) for spans, \(logRecordExportRetries) for log records" : "")
        }
    }

    private let lock = NSLock()
    private var state = Snapshot()

    /// Counters at zero.
    public init() {}

    /// The counters now, read together.
    public var snapshot: Snapshot { lock.withLock { state } }

    /// Counts `count` items of `signal` received.
    package func received(_ count: Int, _ signal: OTLPSignal) {
        lock.withLock {
            switch signal {
            case .traces: state.spansReceived += count
            case .logs: state.logRecordsReceived += count
            }
        }
    }

    /// Counts `count` items of `signal` exported, in records of `bytes` bytes.
    package func exported(_ count: Int, _ signal: OTLPSignal, bytes: Int) {
        lock.withLock {
            switch signal {
            case .traces: state.spansExported += count
            case .logs: state.logRecordsExported += count
            }
            state.bytesWritten += bytes
        }
    }

    /// Counts `count` items of `signal` dropped for `reason`.
    package func dropped(_ count: Int, _ signal: OTLPSignal, _ reason: OTLPDropReason) {
        guard count > 0 else { return }
        lock.withLock {
            switch signal {
            case .traces: state.spansDropped[reason, default: 0] += count
            case .logs: state.logRecordsDropped[reason, default: 0] += count
            }
        }
    }

    package func writeFailed(bytes: Int) {
        lock.withLock {
            state.writeErrors += 1
            state.bytesWritten += bytes
        }
    }

    /// Counts `count` requests of `signal` sent again after a retryable failure.
    package func retried(_ count: Int, _ signal: OTLPSignal) {
        guard count > 0 else { return }
        lock.withLock {
            switch signal {
            case .traces: state.spanExportRetries += count
            case .logs: state.logRecordExportRetries += count
            }
        }
    }
}

extension OTLPSignal {
    /// "span", "spans", "log record" or "log records": the noun of this signal's items, for messages about
    /// `count` of them.
    package func noun(_ count: Int) -> String {
        switch self {
        case .traces: count == 1 ? "span" : "spans"
        case .logs: count == 1 ? "log record" : "log records"
        }
    }
}
