/// The application's span processors in front of the pipeline's: each ended span is shown to them in order,
/// then handed on.
struct OTLPSpanProcessorChain: OTLPProcessor {
    let spanProcessors: [any OTLPSpanProcessor]
    let next: any OTLPProcessor<OTLPScopedSpan>

    func onEnd(_ item: OTLPScopedSpan) {
        // The application's processors read the span: its attributes are converted once, here.
        var item = item
        item.prepareForExport()
        for spanProcessor in spanProcessors { spanProcessor.onEnd(item) }
        next.onEnd(item)
    }

    func forceFlush() -> Bool { next.forceFlush() }

    func shutdown() { next.shutdown() }
}
