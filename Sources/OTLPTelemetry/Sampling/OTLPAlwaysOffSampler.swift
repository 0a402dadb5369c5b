package import OTLPWire

/// Samples no span.
package struct OTLPAlwaysOffSampler: OTLPSampler {
    /// The sampler.
    package init() {}
    package func shouldSample(traceID: OTLPTraceID, parent: OTLPSpanContext?, name: String) -> Bool { false }
    package var description: String { "AlwaysOffSampler" }
}
