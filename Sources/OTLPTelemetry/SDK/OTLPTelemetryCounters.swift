package import OTLPWire
import Foundation

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
        package var writeErrors = 0
        /// Requests of spans sent to a collector again after a retryable answer or a connection failure.
        package var spanExportRetries = 0
        /// Requests of log records sent to a collector again after a retryable answer or a connection failure.
        package var logRecordExportRetries = 0

        /// Spans dropped, whatever the reason.
        package var totalSpansDropped: Int { spansDropped.values.reduce(0, +) }
        /// Log records dropped, whatever the reason.
        package var totalLogRecordsDropped: Int { logRecordsDropped.values.reduce(0, +) }

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
            case .metrics: Self.notSDKSignal(signal)
            }
        }
    }

    /// Counts `count` items of `signal` exported, in records of `bytes` bytes.
    package func exported(_ count: Int, _ signal: OTLPSignal, bytes: Int) {
        lock.withLock {
            switch signal {
            case .traces: state.spansExported += count
            case .logs: state.logRecordsExported += count
            case .metrics: Self.notSDKSignal(signal)
            }
            settleInWrite(count, signal)
            state.bytesWritten += bytes
        }
    }

    /// Counts `count` items of `signal` dropped for `reason`.
    /// Counts `count` items dropped at shutdown's deadline while a write still held them (`shutdown_timeout`):
    /// the process may end before the write does. Should the write end after all, its exporter counts those
    /// items again (exported, or dropped for its own reason); that count then takes the deadline's back, under
    /// the same lock, so no snapshot ever holds an item twice.
    package func droppedInWriteAtDeadline(_ count: Int, _ signal: OTLPSignal) {
        guard count > 0 else { return }
        lock.withLock {
            switch signal {
            case .traces: state.spansDropped[.shutdownTimeout, default: 0] += count
            case .logs: state.logRecordsDropped[.shutdownTimeout, default: 0] += count
            case .metrics: Self.notSDKSignal(signal)
            }
            inWriteAtDeadline[signal, default: 0] += count
        }
    }

    /// Items counted `shutdown_timeout` while a write held them, not yet counted again by their exporter.
    private var inWriteAtDeadline: [OTLPSignal: Int] = [:]

    /// Takes back (holding the lock) up to `count` of the items counted at the deadline while a write held them:
    /// their exporter has just counted them.
    private func settleInWrite(_ count: Int, _ signal: OTLPSignal) {
        guard let held = inWriteAtDeadline[signal], held > 0 else { return }
        let settled = min(held, count)
        inWriteAtDeadline[signal] = held - settled
        func withdraw(_ dropped: inout [OTLPDropReason: Int]) {
            let left = (dropped[.shutdownTimeout] ?? 0) - settled
            dropped[.shutdownTimeout] = left > 0 ? left : nil
        }
        switch signal {
        case .traces: withdraw(&state.spansDropped)
        case .logs: withdraw(&state.logRecordsDropped)
        case .metrics: Self.notSDKSignal(signal)
        }
    }

    /// The write of `count` items that shutdown's deadline counted while it held them
    /// (``droppedInWriteAtDeadline(_:_:)``) has ended. Their exporter's counts that came after the deadline's
    /// took it back already; what is left of it is taken back now: counts the exporter made before the deadline
    /// (the write ended just as the deadline came), or items it keeps pending (a spool) rather than counts.
    package func writeEndedAfterDeadline(_ count: Int, _ signal: OTLPSignal) {
        guard count > 0 else { return }
        lock.withLock { settleInWrite(count, signal) }
    }

    package func dropped(_ count: Int, _ signal: OTLPSignal, _ reason: OTLPDropReason) {
        guard count > 0 else { return }
        lock.withLock {
            switch signal {
            case .traces: state.spansDropped[reason, default: 0] += count
            case .logs: state.logRecordsDropped[reason, default: 0] += count
            case .metrics: Self.notSDKSignal(signal)
            }
            // What an exporter counts of a write that outlived shutdown's deadline (not the stage's own drops).
            if ![.shutdownTimeout, .shutDown, .queueFull].contains(reason) { settleInWrite(count, signal) }
        }
    }

    /// The SDK records spans and log records only: an ``OTLPExportable`` whose signal is metrics is a
    /// programming error, stopped here rather than counted as something else.
    private static func notSDKSignal(_ signal: OTLPSignal) -> Never {
        preconditionFailure("OTLPTelemetryCounters: the telemetry SDK carries traces and logs, not \(signal)")
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
            case .metrics: Self.notSDKSignal(signal)
            }
        }
    }
}
