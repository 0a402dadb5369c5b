/// An exporter whose export splits into rendering a batch (encoding, checking, framing, compressing: the
/// expensive part, safe on any thread and on several at once) and writing the result (in turn, under the
/// exporter's lock). The batch stage lets callers that find its queue filling up render a batch themselves,
/// so that a burst is encoded and compressed on the producers' threads while the worker only writes.
package protocol OTLPRenderingExporter<Item>: OTLPExporter {
    /// `items` as the bytes ``write(_:)`` hands the sink; items left out are counted as dropped here.
    func render(_ items: [Item]) -> OTLPRenderedBatch
    /// Writes a rendered batch and counts its items (exported, or dropped with the reason); returns whether
    /// every item of the batch it was rendered from was exported.
    @discardableResult
    func write(_ batch: OTLPRenderedBatch) -> Bool
}
