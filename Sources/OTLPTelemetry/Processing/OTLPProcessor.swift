internal import OTLPWire
/// Receives finished items (ended spans, emitted log records) and hands them to an exporter.
public protocol OTLPProcessor<Item>: Sendable {
    /// The items processed: ``OTLPScopedSpan`` or ``OTLPScopedLogRecord``.
    associatedtype Item: OTLPExportable
    /// Called when an item is finished. MUST NOT block the caller for long.
    func onEnd(_ item: Item)
    /// Exports everything received so far; returns `false` if that did not finish within the timeout.
    @discardableResult
    func forceFlush() -> Bool
    /// Exports everything received so far, then refuses (and counts) later items.
    func shutdown()
}
