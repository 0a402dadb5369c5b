import PeerSupport

/// One configuration's run: printed as one JSON line for run-pipeline.sh.
struct PipelineResult: JSONLine {
    var mode: String
    var tasks: Int
    var spans: Int
    /// Wall time of the application's tasks (from the first `startSpan` to the last `end` on every task)
    /// divided by the spans: what the application waits per span on its own threads.
    var hotPathNanosPerSpan: Double
    /// From the first `startSpan` to the end of the SDK's shutdown (everything exported).
    var totalSeconds: Double
    /// Spans the SDK reports exported (OTLPWire's counters; for swift-otel, which has no counters, the
    /// spans not reported lost by its diagnostics).
    var exported: Int
    /// Spans the SDK reports dropped (queue full, export failed).
    var dropped: Int
    /// The process's peak resident memory at the end, in bytes.
    var peakResidentBytes: Int

    init(options: PipelineOptions, hotPathSeconds: Double, totalSeconds: Double, exported: Int, dropped: Int) {
        mode = options.mode.rawValue
        tasks = options.tasks
        spans = options.spans
        hotPathNanosPerSpan = hotPathSeconds * 1e9 / Double(options.spans)
        self.totalSeconds = totalSeconds
        self.exported = exported
        self.dropped = dropped
        peakResidentBytes = ProcessCost.peakResidentBytes()
    }
}
