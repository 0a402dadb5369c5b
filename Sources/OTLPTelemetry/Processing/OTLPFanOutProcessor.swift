/// Hands every item to several processors, in order: a signal written to a file and delivered to a
/// collector, each through a batch processor of its own (a slow collector never holds up the file).
struct OTLPFanOutProcessor<Item: OTLPExportable>: OTLPProcessor {
    let processors: [any OTLPProcessor<Item>]

    func onEnd(_ item: Item) {
        // The item's deferred work (a span's attribute conversion) is done once, here, so that every output
        // gets the same values and none converts them again.
        var item = item
        item.prepareForExport()
        for processor in processors { processor.onEnd(item) }
    }

    func forceFlush() -> Bool {
        // Every processor is flushed, whatever the others returned.
        processors.map { $0.forceFlush() }.allSatisfy { $0 }
    }

    func shutdown() {
        for processor in processors { processor.shutdown() }
    }
}
