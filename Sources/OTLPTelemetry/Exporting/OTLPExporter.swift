internal import OTLPWire
/// Sends batches of finished items somewhere. Called by one processor thread at a time.
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
}
