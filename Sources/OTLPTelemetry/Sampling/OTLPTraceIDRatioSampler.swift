package import OTLPWire

/// Samples a fixed fraction of traces, decided by the trace ID alone, so every service that uses the same
/// ratio keeps or drops the same traces. Uses the 56 random low bits of the trace ID (W3C Trace Context
/// level 2): sampled when they are below `ratio` x 2^56.
package struct OTLPTraceIDRatioSampler: OTLPSampler {
    /// The fraction of traces kept, 0...1 (as clamped).
    package let ratio: Double
    private let threshold: UInt64

    /// - Parameter ratio: 0...1 (clamped; NaN counts as 1, keeping every trace rather than losing them).
    package init(ratio: Double) {
        let clamped = ratio.isNaN ? 1 : min(max(ratio, 0), 1)
        self.ratio = clamped
        threshold = clamped >= 1 ? 1 << 56 : UInt64(clamped * Double(UInt64(1) << 56))
    }

    package func shouldSample(traceID: OTLPTraceID, parent: OTLPSpanContext?, name: String) -> Bool {
        (traceID.low & 0x00FF_FFFF_FFFF_FFFF) < threshold
    }

    package var description: String { "TraceIdRatioBased{\(ratio)}" }
}
