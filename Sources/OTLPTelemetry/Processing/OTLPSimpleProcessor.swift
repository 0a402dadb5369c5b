internal import OTLPWire
import Foundation

/// Exports each item as soon as it is finished, on the caller's thread. For tests and tools that emit
/// little; services want ``OTLPBatchProcessor``.
public final class OTLPSimpleProcessor<Exporter: OTLPExporter>: OTLPProcessor, @unchecked Sendable {
    /// The items processed: the exporter's.
    public typealias Item = Exporter.Item
    private let exporter: Exporter
    private let counters: OTLPTelemetryCounters
    private let lock = NSLock()
    private var isShutDown = false

    /// A processor that exports through `exporter`, counting in `counters`.
    public init(exporter: Exporter, counters: OTLPTelemetryCounters) {
        self.exporter = exporter
        self.counters = counters
    }

    public func onEnd(_ item: Item) {
        var item = item
        item.prepareForExport()
        counters.received(1, Item.signal)
        lock.withLock {
            guard !isShutDown else {
                counters.dropped(1, Item.signal, .shutDown)
                return
            }
            exporter.export([item])
        }
    }

    @discardableResult
    public func forceFlush() -> Bool {
        lock.withLock { exporter.forceFlush() }
        return true
    }

    public func shutdown() {
        lock.withLock {
            guard !isShutDown else { return }
            isShutDown = true
            exporter.shutdown()
        }
    }
}
