public import OTLPWire

/// Decides at span start whether a span is recorded and exported.
///
/// The specification's samplers (always on, always off, trace-ID ratio, parent-based) are what
/// ``OTLPTelemetryConfiguration/Sampling/sampler`` makes from a ratio and a parent-based flag; conform to
/// this protocol for a sampler of your own.
public protocol OTLPSampler: Sendable {
    /// `true` to record and export the span; `false` to make a non-recording span whose context still
    /// propagates (with the sampled flag cleared).
    func shouldSample(traceID: OTLPTraceID, parent: OTLPSpanContext?, name: String) -> Bool
    /// A short description, as the specification's `GetDescription`.
    var description: String { get }
}
