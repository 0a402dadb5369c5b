/// Hands every item to several stages, in order: a signal written to a file and delivered to a
/// collector, each through a batch stage of its own (a slow collector never holds up the file).
package struct OTLPFanOutStage<Item: OTLPExportable>: OTLPExportStage {
    let stages: [any OTLPExportStage<Item>]

    /// A stage handing every item to `stages`, in order.
    package init(stages: [any OTLPExportStage<Item>]) {
        self.stages = stages
    }

    package func onEnd(_ item: Item) {
        // The item's deferred work (a span's attribute conversion) is done once, here, so that every output
        // gets the same values and none converts them again.
        var item = item
        item.prepareForExport()
        for stage in stages { stage.onEnd(item) }
    }

    package func forceFlush() -> Bool {
        // Every stage is flushed, whatever the others returned.
        stages.map { $0.forceFlush() }.allSatisfy { $0 }
    }

    /// The largest of its stages'.
    package var peakQueueDemand: Int { stages.map(\.peakQueueDemand).max() ?? 0 }

    package func shutdown() {
        for stage in stages { stage.shutdown() }
    }

    /// Every stage shuts down at once, each by `deadline` (a collector that does not answer never holds up the
    /// file, nor uses up its time).
    package func shutdown(before deadline: ContinuousClock.Instant) -> Bool {
        OTLPConcurrentCalls.run(stages.map { stage in { @Sendable in stage.shutdown(before: deadline) } }).allSatisfy { $0 }
    }
}
