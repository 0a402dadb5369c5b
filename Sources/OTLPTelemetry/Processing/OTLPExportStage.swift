internal import OTLPWire
/// The pipeline's stage between a tracer or log emitter and its exporters: receives finished items (ended
/// spans, emitted log records) and hands them to an exporter, in batches (``OTLPBatchStage``) or one at a
/// time (``OTLPSimpleStage``).
///
/// Not to be confused with the application's processors (``OTLPSpanProcessor``, ``OTLPLogRecordProcessor``),
/// which run before it; a stage is an assembly part of the pipeline, which ``OTLPTelemetry`` (or
/// `OTLPTracer(exporter:...)`, `OTLPLogEmitter(exporter:...)`) puts together.
package protocol OTLPExportStage<Item>: Sendable {
    /// The items handed on: ``OTLPScopedSpan`` or ``OTLPScopedLogRecord``.
    associatedtype Item: OTLPExportable
    /// Called when an item is finished. MUST NOT block the caller for long. The item is handed over (consumed),
    /// so that a stage that keeps it does not copy it.
    func onEnd(_ item: consuming Item)
    /// Exports everything received so far; returns `false` if that did not finish within the timeout.
    @discardableResult
    func forceFlush() -> Bool
    /// Exports everything received so far, then refuses (and counts) later items.
    func shutdown()
    /// ``shutdown()`` that returns by `deadline` (on the monotonic clock) whatever its exporters do: what is
    /// not exported by then is counted as dropped (`shutdown_timeout`), except a batch an exporter still
    /// holds, which that exporter counts when it lets go of it. Returns whether everything was handled
    /// (exported, or counted) in time.
    @discardableResult
    func shutdown(before deadline: ContinuousClock.Instant) -> Bool
    /// The most items the stage's queue would have had to hold at once for nothing to be dropped for a full
    /// queue (what it held plus what it dropped before the worker took them); 0 without a queue.
    var peakQueueDemand: Int { get }
}

extension OTLPExportStage {
    /// A stage without a queue never needed one.
    package var peakQueueDemand: Int { 0 }

    /// A stage without a queue holds nothing back: ``shutdown()``.
    @discardableResult
    package func shutdown(before deadline: ContinuousClock.Instant) -> Bool {
        shutdown()
        return true
    }
}
