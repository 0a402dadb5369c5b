import Foundation
public import OTLPTelemetry
public import OTLPWire

/// A real tracer pipeline (no batching, a stream exporter) writing u32be records to memory, and the
/// spans decoded back from those bytes: what a test asserts on.
public final class OTLPSpanRecorder: @unchecked Sendable {
    /// The bytes written by the pipeline: u32be-framed traces requests.
    package let sink = OTLPMemorySink()
    /// What the pipeline received, exported and dropped.
    package let counters = OTLPTelemetryCounters()
    private let stage: OTLPSimpleStage<OTLPStreamExporter<OTLPScopedSpan>>
    /// The clock every span is timed with; move it to make durations.
    public let clock: OTLPManualClock
    /// The source of trace and span IDs: 1, 2, 3, … in the order they are made.
    package let idGenerator = OTLPSequentialIDGenerator()

    /// A recorder whose spans are timed by `clock`.
    public init(clock: OTLPManualClock = OTLPManualClock()) {
        self.clock = clock
        stage = OTLPSimpleStage(
            exporter: OTLPStreamExporter<OTLPScopedSpan>(
                sink: sink, resource: OTLPResource(attributes: [OTLPAttribute("service.name", "tests")]), counters: counters),
            counters: counters)
    }

    /// A tracer for `scope` that records here.
    public func tracer(scope: OTLPInstrumentationScope) -> OTLPTracer {
        OTLPTracer(stage: stage, scope: scope, idGenerator: idGenerator, clock: clock)
    }

    /// Every span exported so far, with its scope, in export order.
    public func spans() throws -> [(scope: OTLPInstrumentationScope?, span: OTLPSpan)] {
        let reader = try OTLPRecordReader(
            source: OTLPMemorySource(sink.bytes), options: OTLPReaderOptions(framing: .u32be, signal: .traces))
        var out: [(OTLPInstrumentationScope?, OTLPSpan)] = []
        while let record = try reader.next() {
            guard case .traces(let data) = record.payload else { continue }
            for group in data.resourceGroups {
                for scopeGroup in group.scopeGroups { for span in scopeGroup.items { out.append((scopeGroup.scope, span)) } }
            }
        }
        return out
    }
}
