internal import OTLPWire
/// Sends batches of finished items somewhere. Called from one thread at a time (the pipeline's batching
/// worker, or the thread that ended the item when there is no batching).
public protocol OTLPExporter<Item>: Sendable {
    /// The items exported: ``OTLPScopedSpan`` or ``OTLPScopedLogRecord``.
    associatedtype Item: OTLPExportable
    /// Exports `items`; returns whether they were written. Failures are counted by the exporter.
    @discardableResult
    func export(_ items: [Item]) -> Bool
    /// Makes everything exported so far durable, as far as the exporter's durability setting asks.
    func forceFlush()
    /// Flushes and releases resources; later exports are refused.
    func shutdown()
    /// Called (from any thread, possibly while an export runs) when shutdown has begun and must end within
    /// `seconds`: an exporter that waits between attempts (a network exporter retrying) stops waiting past
    /// that time and drops what it could not send. The default does nothing.
    func prepareForShutdown(withinSeconds seconds: Double)
}

extension OTLPExporter {
    /// Does nothing: exports of this exporter do not wait between attempts.
    public func prepareForShutdown(withinSeconds seconds: Double) {}
}
