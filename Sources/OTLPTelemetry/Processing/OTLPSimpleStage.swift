internal import OTLPWire
import Foundation

/// Exports each item as soon as it is finished, on the caller's thread. For tests and tools that emit
/// little; services want ``OTLPBatchStage``.
package final class OTLPSimpleStage<Exporter: OTLPExporter>: OTLPExportStage, @unchecked Sendable {
    /// The items handed on: the exporter's.
    package typealias Item = Exporter.Item
    private let exporter: Exporter
    private let counters: OTLPTelemetryCounters
    private let lock = NSLock()
    private var isShutDown = false

    /// A stage that exports through `exporter`, counting in `counters`.
    package init(exporter: Exporter, counters: OTLPTelemetryCounters) {
        self.exporter = exporter
        self.counters = counters
    }

    package func onEnd(_ item: Item) {
        var item = item
        item.prepareForExport()
        counters.received(1, Item.signal)
        lock.withLock {
            guard !isShutDown else {
                counters.dropped(1, Item.signal, .shutDown)
                return
            }
            if exporter.export([item]), !(exporter is any OTLPSpanJournalAcknowledging) {
                OTLPSpanJournal.acknowledgeExported([item], durable: OTLPSpanJournal.isDurableDestination(exporter))
            }
        }
    }

    @discardableResult
    package func forceFlush() -> Bool {
        lock.withLock { exporter.forceFlush() }
        return true
    }

    package func shutdown() {
        lock.withLock {
            guard !isShutDown else { return }
            isShutDown = true
            exporter.shutdown()
        }
    }
}
