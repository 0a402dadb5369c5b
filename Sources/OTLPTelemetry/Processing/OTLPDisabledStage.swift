/// Counts and drops everything: the export stage of a signal that has no output.
struct OTLPDisabledStage<Item: OTLPExportable>: OTLPExportStage {
    let counters: OTLPTelemetryCounters

    func onEnd(_ item: Item) {
        counters.received(1, Item.signal)
        counters.dropped(1, Item.signal, .disabled)
    }

    func forceFlush() -> Bool { true }
    func shutdown() {}
}
