import Foundation
import Testing
import Tracing
import OTLPWire
@testable import OTLPTelemetry

@Suite("Limits and sampling")
struct OTLPLimitsAndSamplingTests {
    func tracer(
        sampler: any OTLPSampler = OTLPParentBasedSampler(), limits: OTLPLimits = OTLPLimits()
    ) -> (OTLPTracer, OTLPMemorySink, OTLPTelemetryCounters) {
        let sink = OTLPMemorySink()
        let counters = OTLPTelemetryCounters()
        let exporter = OTLPStreamExporter<OTLPScopedSpan>(sink: sink, resource: OTLPResource(), counters: counters)
        return (
            OTLPTracer(
                stage: OTLPSimpleStage(exporter: exporter, counters: counters), scope: OTLPInstrumentationScope(name: "t"),
                sampler: sampler, limits: limits), sink, counters
        )
    }

    @Test("default span limits: 128 attributes, events and links; the excess is counted in dropped_*_count")
    func spanLimits() throws {
        let (tracer, sink, _) = tracer()
        let other = tracer.startSpan("other")
        let span = tracer.startSpan("busy")
        for index in 0..<130 { span.attributes["a\(String(format: "%03d", index))"] = index }
        for index in 0..<131 { span.addEvent(SpanEvent(name: "e\(index)")) }
        for _ in 0..<129 { span.addLink(SpanLink(context: other.context, attributes: [:])) }
        span.end()
        let exported = try #require(spans(try readAll(sink.bytes)).first)
        #expect(exported.attributes.count == 128 && exported.droppedAttributesCount == 2)
        #expect(exported.events.count == 128 && exported.droppedEventsCount == 3)
        #expect(exported.links.count == 128 && exported.droppedLinksCount == 1)
    }

    @Test("at the attribute count limit the first attributes set are kept, not the alphabetically first; held keys still take new values")
    func firstAttributesKept() throws {
        let (tracer, sink, _) = tracer(limits: OTLPLimits(attributeCountLimit: 3))
        let span = tracer.startSpan("s")
        span.attributes["zulu"] = 1
        span.attributes["yankee"] = 2
        span.attributes["xray"] = 3
        span.attributes["alpha"] = 4  // refused
        span.attributes["yankee"] = 20  // held: updated
        span.attributes.merge(["bravo": 5, "charlie": 6])  // refused, both
        span.end()
        let exported = try #require(spans(try readAll(sink.bytes)).first)
        #expect(exported.attributes == [OTLPAttribute("xray", .int(3)), OTLPAttribute("yankee", .int(20)), OTLPAttribute("zulu", .int(1))])
        #expect(exported.droppedAttributesCount == 3)
    }

    @Test("changes after the end are discarded; changes at the limit are each checked against the attributes held")
    func attributesAfterEndAndAtLimit() throws {
        let (tracer, sink, _) = tracer(limits: OTLPLimits(attributeCountLimit: 2))
        let span = tracer.startSpan("s")
        span.attributes["alpha"] = 1
        span.attributes["bravo"] = 2
        span.attributes["charlie"] = 3  // refused
        span.attributes["delta"] = 4  // refused
        span.attributes["alpha"] = 10  // held: updated
        span.end()
        span.attributes["echo"] = 5  // after the end: discarded
        span.attributes["alpha"] = 11  // discarded
        #expect(span.attributes.get("echo") == nil && span.attributes.get("alpha") == .int64(10) && span.attributes.count == 2)
        let exported = try #require(spans(try readAll(sink.bytes)).first)
        #expect(exported.attributes == [OTLPAttribute("alpha", .int(10)), OTLPAttribute("bravo", .int(2))])
        #expect(exported.droppedAttributesCount == 2)
    }

    @Test("value length limit cuts strings, also inside arrays; per-event attribute limit")
    func valueLength() throws {
        let (tracer, sink, _) = tracer(limits: OTLPLimits(attributeValueLengthLimit: 4, attributePerEventCountLimit: 1))
        let span = tracer.startSpan("s")
        span.attributes["long"] = "abcdefgh"
        span.attributes["list"] = ["123456", "ab"]
        span.addEvent(SpanEvent(name: "e", attributes: ["x": 1, "y": 2]))
        span.end()
        let exported = try #require(spans(try readAll(sink.bytes)).first)
        #expect(exported.attributes.contains(OTLPAttribute("long", "abcd")))
        #expect(exported.attributes.contains(OTLPAttribute("list", ["1234", "ab"])))
        #expect(exported.events[0].attributes.count == 1 && exported.events[0].droppedAttributesCount == 1)
    }

    /// A value `depth` arrays (or key-value lists) deep.
    static func nested(_ depth: Int, keyValueLists: Bool = false) -> OTLPAttributeValue {
        var value = OTLPAttributeValue.string("leaf")
        for _ in 0..<depth { value = keyValueLists ? .keyValueList([OTLPAttribute("k", value)]) : .array([value]) }
        return value
    }

    @Test(
        "values nested deeper than 30 levels are cut to an empty value (attributes, event attributes, log bodies), with or without a length limit; the result reads back with default limits",
        arguments: [false, true])
    func nestingCut(keyValueLists: Bool) throws {
        for limits in [OTLPLimits(), OTLPLimits(attributeValueLengthLimit: nil)] {
            var span = OTLPSpan(
                traceID: OTLPTraceID(high: 1, low: 1), spanID: OTLPSpanID(1), name: "deep", startTimeUnixNano: 1, endTimeUnixNano: 2,
                attributes: [OTLPAttribute("deep", Self.nested(5_000, keyValueLists: keyValueLists)), OTLPAttribute("flat", "x")],
                events: [
                    OTLPSpanEvent(
                        name: "e", timeUnixNano: 1, attributes: [OTLPAttribute("deep", Self.nested(40, keyValueLists: keyValueLists))])
                ])
            limits.apply(to: &span)
            let kept = try #require(span.attributes.first?.value)
            #expect(
                !kept.nests(deeperThan: OTLPLimits.maxValueNestingLevels) && kept.nests(deeperThan: OTLPLimits.maxValueNestingLevels - 1))
            #expect(span.events[0].attributes.nest(deeperThan: OTLPLimits.maxValueNestingLevels) == false)
            #expect(span.attributes[1].value == "x" && span.droppedAttributesCount == 0)
            var record = OTLPLogRecord(timeUnixNano: 1, body: Self.nested(5_000, keyValueLists: keyValueLists))
            limits.apply(to: &record)
            #expect(record.body?.nests(deeperThan: OTLPLimits.maxValueNestingLevels) == false)
            let bytes = OTLPEncoder().encode(
                OTLPTracesData(resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"), items: [span]))
            #expect(throws: Never.self) { try bytes.withUnsafeBytes { try OTLPDecoder().decodeTraces($0) } }
        }
    }

    @Test("trace ID ratio: decided by the trace ID's 56 low bits, about the ratio of traces kept")
    func ratio() {
        let sampler = OTLPTraceIDRatioSampler(ratio: 0.25)
        #expect(sampler.shouldSample(traceID: OTLPTraceID(high: 0, low: 0x003F_FFFF_FFFF_FFFF), parent: nil, name: ""))
        #expect(!sampler.shouldSample(traceID: OTLPTraceID(high: 0, low: 0x0040_0000_0000_0000), parent: nil, name: ""))
        let ids = OTLPRandomIDGenerator()
        let kept = (0..<20_000).filter { _ in sampler.shouldSample(traceID: ids.newTraceID(), parent: nil, name: "") }.count
        #expect((4_400...5_600).contains(kept))
        #expect(!OTLPTraceIDRatioSampler(ratio: 0).shouldSample(traceID: OTLPTraceID(high: 0, low: 0), parent: nil, name: ""))
        #expect(OTLPTraceIDRatioSampler(ratio: 1).shouldSample(traceID: OTLPTraceID(high: .max, low: .max), parent: nil, name: ""))
    }

    @Test("parent-based: children follow the root's decision; unsampled spans are not exported but propagate")
    func parentBased() throws {
        let (tracer, sink, counters) = tracer(sampler: OTLPParentBasedSampler(root: OTLPAlwaysOffSampler()))
        let root = tracer.startSpan("root")
        #expect(!root.isRecording)
        #expect(root.spanContext.traceFlags & 1 == 0)
        let child = tracer.startSpan("child", context: root.context)
        #expect(!child.isRecording && child.spanContext.traceID == root.spanContext.traceID)
        child.end()
        root.end()
        // A sampled remote parent is followed even though the root sampler says no.
        var remote = InstrumentationContext.topLevel
        remote.otlpSpanContext = OTLPSpanContext(
            traceID: OTLPTraceID(high: 1, low: 1), spanID: OTLPSpanID(1), traceFlags: 1, isRemote: true)
        tracer.startSpan("remote child", context: remote).end()
        let exported = spans(try readAll(sink.bytes))
        #expect(exported.map(\.name) == ["remote child"])
        #expect(counters.snapshot.spansReceived == 1)
    }

    @Test("configuration: sampling and limits keys")
    func configuration() throws {
        let (configuration, warnings) = try OTLPTelemetryConfiguration.load(
            json: Data(
                #"{"sampling": {"ratio": 0.5, "parentBased": false}, "limits": {"attributeCountLimit": 10, "attributeValueLengthLimit": 64}}"#
                    .utf8))
        #expect(warnings.isEmpty)
        #expect(configuration.sampling.sampler.description == "TraceIdRatioBased{0.5}")
        #expect(OTLPTelemetryConfiguration().sampling.sampler.description == "ParentBased{root=AlwaysOnSampler}")
        #expect(configuration.limits == OTLPLimits(attributeCountLimit: 10, attributeValueLengthLimit: 64))
        #expect(throws: OTLPConfigurationError.self) {
            try OTLPTelemetryConfiguration.load(json: Data(#"{"sampling": {"ratio": 2}}"#.utf8))
        }
    }
}
