/// An exporter of any type, for export stages made from a factory's existential exporter.
struct OTLPAnyExporter<Item: OTLPExportable>: OTLPExporter {
    let base: any OTLPExporter<Item>

    func export(_ items: [Item]) -> Bool { base.export(items) }
    func forceFlush() { base.forceFlush() }
    func shutdown() { base.shutdown() }
    func prepareForShutdown(withinSeconds seconds: Double) { base.prepareForShutdown(withinSeconds: seconds) }
}
