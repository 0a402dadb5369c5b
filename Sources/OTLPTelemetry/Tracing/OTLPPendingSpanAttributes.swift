internal import OTLPWire
internal import Tracing

/// A span's attributes as the Tracing API holds them, with the limits to apply: what
/// ``OTLPTracingSpan/end(at:)`` hands on instead of converting on the application's thread. Converting them
/// (sorted by key, for deterministic output) and applying the limits is left to whoever reads the span
/// first, normally the pipeline's worker (``OTLPScopedSpan/prepareForExport()``).
struct OTLPPendingSpanAttributes: Sendable {
    var attributes: SpanAttributes
    /// The tracer's limits, clamped into their ranges.
    var limits: OTLPLimits

    /// Sets `span`'s attributes from these and applies the limits to the whole span (its events' and links'
    /// attributes too). Returns whether a value is of the application's own type (`stringConvertible`).
    @discardableResult
    func complete(_ span: inout OTLPSpan) -> Bool {
        var holdsApplicationValues = false
        span.attributes = attributes.otlpAttributes(holdsApplicationValues: &holdsApplicationValues)
        limits.apply(to: &span)
        return holdsApplicationValues
    }
}
