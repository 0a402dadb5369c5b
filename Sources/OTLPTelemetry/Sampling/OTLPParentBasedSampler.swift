package import OTLPWire

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
