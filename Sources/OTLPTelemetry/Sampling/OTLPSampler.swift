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

/// Samples every span.
package struct OTLPAlwaysOnSampler: OTLPSampler {
    /// The sampler.
    package init() {}
    package func shouldSample(traceID: OTLPTraceID, parent: OTLPSpanContext?, name: String) -> Bool { true }
    package var description: String { "AlwaysOnSampler" }
}

/// Samples no span.
package struct OTLPAlwaysOffSampler: OTLPSampler {
    /// The sampler.
    package init() {}
    package func shouldSample(traceID: OTLPTraceID, parent: OTLPSpanContext?, name: String) -> Bool { false }
    package var description: String { "AlwaysOffSampler" }
}

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

/// Follows the parent's sampled flag when there is a parent (local or remote); asks `root` otherwise.
/// The specification's default sampler is `ParentBased(root: AlwaysOn)`.
package struct OTLPParentBasedSampler: OTLPSampler {
    /// The sampler asked for spans without a parent.
    package let root: any OTLPSampler

    /// A sampler that asks `root` (default: always on) when there is no parent.
    package init(root: any OTLPSampler = OTLPAlwaysOnSampler()) {
        self.root = root
    }

    package func shouldSample(traceID: OTLPTraceID, parent: OTLPSpanContext?, name: String) -> Bool {
        guard let parent else { return root.shouldSample(traceID: traceID, parent: nil, name: name) }
        return parent.traceFlags & 1 == 1
    }

    package var description: String { "ParentBased{root=\(root.description)}" }
}
