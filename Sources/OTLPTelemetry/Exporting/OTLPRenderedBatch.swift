package import OTLPWire

/// A batch made into the bytes its exporter's sink receives (framed records, a complete gzip member with
/// gzip), by ``OTLPRenderingExporter/render(_:)``; written by ``OTLPRenderingExporter/write(_:)``.
package struct OTLPRenderedBatch: Sendable {
    /// The bytes for the sink; empty when nothing could be rendered.
    package var bytes: [UInt8]
    /// Items the bytes hold.
    package var itemCount: Int
    /// Items left out and already counted as dropped (too deeply nested, or too large for readers).
    package var leftOutCount: Int
    /// Why the batch could not be rendered (its items are then counted as `write_failed` when written).
    package var failure: OTLPWriteError?
    /// The journaled spans among the items the bytes hold: announced to their journal before the write, and
    /// acknowledged after it.
    package var journaledSpans: [OTLPScopedSpan] = []
}
