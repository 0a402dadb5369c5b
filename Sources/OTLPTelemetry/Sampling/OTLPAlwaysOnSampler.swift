package import OTLPWire

/// Samples every span.
package struct OTLPAlwaysOnSampler: OTLPSampler {
    /// The sampler.
    package init() {}
    package func shouldSample(traceID: OTLPTraceID, parent: OTLPSpanContext?, name: String) -> Bool { true }
    package var description: String { "AlwaysOnSampler" }
}
