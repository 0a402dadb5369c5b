/// The application's span processors in front of the pipeline's export stage: each ended span is shown to them in order,
/// then handed on.
struct OTLPSpanProcessorChain: OTLPExportStage {
    let spanProcessors: [any OTLPSpanProcessor]
    let next: any OTLPExportStage<OTLPScopedSpan>
    /// Whether a processor may read ended spans (one that is not an ``OTLPStartOnlySpanProcessor``).
    let readsEndedSpans: Bool

    init(spanProcessors: [any OTLPSpanProcessor], next: any OTLPExportStage<OTLPScopedSpan>) {
        self.spanProcessors = spanProcessors
        self.next = next
        readsEndedSpans = spanProcessors.contains { !($0 is any OTLPStartOnlySpanProcessor) }
    }

    func onEnd(_ item: OTLPScopedSpan) {
        guard readsEndedSpans else {
            // No processor reads it: the attributes are left for the pipeline's worker to convert.
            next.onEnd(item)
            return
        }
        // The application's processors read the span: its attributes are converted once, here.
        var item = item
        item.prepareForExport()
        for spanProcessor in spanProcessors { spanProcessor.onEnd(item) }
        next.onEnd(item)
    }

    func forceFlush() -> Bool { next.forceFlush() }

    func shutdown() { next.shutdown() }
}
