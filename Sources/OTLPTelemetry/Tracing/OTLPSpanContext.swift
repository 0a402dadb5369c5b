public import OTLPWire
package import Tracing

/// The identity of a span as it travels in an `InstrumentationContext` (and, as W3C `traceparent`,
/// between processes).
public struct OTLPSpanContext: Sendable, Hashable {
    /// The trace the span belongs to.
    public var traceID: OTLPTraceID
    /// The span's own ID.
    public var spanID: OTLPSpanID
    /// W3C trace flags; bit 0 is `sampled`.
    public var traceFlags: UInt8
    /// W3C `tracestate` header value.
    public var traceState: String
    /// Whether the context came from another process.
    public var isRemote: Bool

    /// A context for the span `spanID` of trace `traceID`; sampled and local unless given.
    package init(traceID: OTLPTraceID, spanID: OTLPSpanID, traceFlags: UInt8 = 1, traceState: String = "", isRemote: Bool = false) {
        self.traceID = traceID
        self.spanID = spanID
        self.traceFlags = traceFlags
        self.traceState = traceState
        self.isRemote = isRemote
    }

    /// The W3C `traceparent` header value: `00-<trace id>-<span id>-<flags>`.
    package var traceparent: String {
        let flags = String(traceFlags, radix: 16)
        return "00-\(traceID.hex)-\(spanID.hex)-\(flags.count == 1 ? "0" + flags : flags)"
    }

    /// Parses a W3C `traceparent` header (version 00 layout; later versions are read by their first fields).
    package init?(traceparent: String, traceState: String = "") {
        let parts = traceparent.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0].count == 2, parts[0] != "ff", parts[0] != "00" || parts.count == 4,
            let traceID = OTLPTraceID(hex: parts[1]), !traceID.isZero,
            let spanID = OTLPSpanID(hex: parts[2]), !spanID.isZero,
            parts[3].count == 2, let flags = UInt8(parts[3], radix: 16)
        else { return nil }
        self.init(traceID: traceID, spanID: spanID, traceFlags: flags, traceState: traceState, isRemote: true)
    }
}

private enum OTLPSpanContextKey: InstrumentationContextKey {
    typealias Value = OTLPSpanContext
    static var nameOverride: String? { "otlp-span-context" }
}

extension InstrumentationContext {
    /// The span context of the active span (or of a remote parent), if any.
    package var otlpSpanContext: OTLPSpanContext? {
        get { self[OTLPSpanContextKey.self] }
        set { self[OTLPSpanContextKey.self] = newValue }
    }
}
