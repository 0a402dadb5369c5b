import Foundation
import Testing
import Tracing
import OTLPWire
@testable import OTLPTelemetry
import OTLPTesting

/// A tracer's ended spans leave its attributes to be converted later, off the application's thread: they
/// must read the same wherever that happens.
@Suite("OTLPScopedSpan")
struct OTLPScopedSpanTests {
    /// Keeps every item as the tracer handed it on (nothing prepared).
    final class Capture: OTLPExportStage, @unchecked Sendable {
        private let lock = NSLock()
        private var captured: [OTLPScopedSpan] = []
        var items: [OTLPScopedSpan] { lock.withLock { captured } }
        func onEnd(_ item: OTLPScopedSpan) { lock.withLock { captured.append(item) } }
        func forceFlush() -> Bool { true }
        func shutdown() {}
    }

    private enum TenantKey: ServiceContextKey {
        typealias Value = String
    }

    func endedSpan(limits: OTLPLimits) throws -> OTLPScopedSpan {
        let capture = Capture()
        let tracer = OTLPTracer(
            stage: capture, scope: OTLPInstrumentationScope(name: "tests"), idGenerator: OTLPSequentialIDGenerator(),
            clock: OTLPManualClock(), limits: limits)
        let span = tracer.startSpan("checkout")
        span.attributes["zeta"] = "abcdefgh"
        span.attributes["alpha"] = 1
        span.attributes["mid"] = SpanAttribute.int64Array([1, 2])
        span.addEvent(SpanEvent(name: "tap", attributes: ["note": "long note"]))
        span.end()
        return try #require(capture.items.first)
    }

    @Test("A request groups spans by scope in order of first appearance, interleaved scopes included, pending attributes converted")
    func requestGroupsByScope() throws {
        let first = OTLPInstrumentationScope(name: "first", version: "1")
        let second = OTLPInstrumentationScope(name: "second")
        func span(_ name: String) -> OTLPSpan { OTLPSpan(traceID: nil, spanID: nil, name: name, startTimeUnixNano: 1, endTimeUnixNano: 2) }
        var items = [first, first, second, first, second].enumerated().map {
            OTLPScopedSpan(scope: $0.element, span: span("s\($0.offset)"))
        }
        // A span the tracer ended: its attributes are still pending, and the request reads them converted.
        var pending = try endedSpan(limits: .default)
        pending.scope = second
        items.append(pending)
        let request = OTLPScopedSpan.request(items, resource: OTLPResource(attributes: []))
        let groups = try #require(request.resourceGroups.first?.scopeGroups)
        #expect(request.resourceGroups.count == 1)
        #expect(groups.map(\.scope) == [first, second])
        #expect(groups[0].items.map(\.name) == ["s0", "s1", "s3"])
        #expect(groups[1].items.map(\.name) == ["s2", "s4", "checkout"])
        #expect(groups[1].items[2].attributes.map(\.key) == ["alpha", "mid", "zeta"])
        #expect(groups[1].items[2] == pending.span)
    }

    @Test("Attributes read before and after prepareForExport are the same: sorted by key, cut to the limits")
    func pendingAttributes() throws {
        let item = try endedSpan(limits: OTLPLimits(attributeValueLengthLimit: 4))
        let expected = [
            OTLPAttribute("alpha", .int(1)), OTLPAttribute("mid", .array([.int(1), .int(2)])), OTLPAttribute("zeta", "abcd"),
        ]
        #expect(item.span.attributes == expected)
        // The limits hold for the events too, as when they were applied at the span's end.
        #expect(item.span.events.first?.attributes == [OTLPAttribute("note", "long")])

        var prepared = item
        prepared.prepareForExport()
        #expect(prepared.span == item.span)
        prepared.prepareForExport()  // a second time changes nothing
        #expect(prepared.span == item.span)

        // Changing part of the span keeps the converted attributes; replacing it replaces them.
        var renamed = item
        renamed.span.name = "renamed"
        #expect(renamed.span.attributes == expected && renamed.span.name == "renamed")
        var replaced = item
        replaced.span = OTLPSpan(
            traceID: item.span.traceID, spanID: item.span.spanID, name: "other", startTimeUnixNano: 1, endTimeUnixNano: 2)
        #expect(replaced.span.attributes.isEmpty && replaced.span.name == "other")
    }

    @Test("Nesting is checked again on a span changed after the tracer's limits were applied")
    func nestingAfterChange() throws {
        var item = try endedSpan(limits: .default)
        item.prepareForExport()
        #expect(!item.nestsValues(deeperThan: 40))
        var deep = OTLPAttributeValue.int(1)
        for _ in 0..<50 { deep = .array([deep]) }
        item.span.attributes.append(OTLPAttribute("deep", deep))
        #expect(item.nestsValues(deeperThan: 40))
        var replaced = item
        replaced.span = item.span
        #expect(replaced.nestsValues(deeperThan: 40))
    }

    @Test("The attribute count limit still keeps the first attributes set, whoever converts them")
    func countLimit() throws {
        let item = try endedSpan(limits: OTLPLimits(attributeCountLimit: 1))
        #expect(item.span.attributes == [OTLPAttribute("zeta", "abcdefgh")])
        #expect(item.span.droppedAttributesCount == 2)
    }

    /// Sets an attribute on starting spans; ignores ended ones.
    struct Tagger: OTLPStartOnlySpanProcessor {
        func onStart(_ span: OTLPTracingSpan, parentContext: ServiceContext) { span.attributes["tenant"] = "acme" }
    }

    /// Reads ended spans.
    final class Reader: OTLPSpanProcessor, @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [[OTLPAttribute]] = []
        var attributes: [[OTLPAttribute]] { lock.withLock { seen } }
        func onEnd(_ span: OTLPScopedSpan) { lock.withLock { seen.append(span.span.attributes) } }
    }

    @Test("Processors that only act on start leave the conversion to the pipeline's worker; one that reads ended spans gets them converted")
    func processorsAndConversion() throws {
        for reads in [false, true] {
            let capture = Capture()
            let reader = Reader()
            let processors: [any OTLPSpanProcessor] = reads ? [Tagger(), reader] : [Tagger()]
            let tracer = OTLPTracer(stage: capture, scope: OTLPInstrumentationScope(name: "tests"), spanProcessors: processors)
            let span = tracer.startSpan("checkout")
            span.attributes["zeta"] = "z"
            span.end()
            let item = try #require(capture.items.first)
            #expect(item.hasPendingAttributes == !reads)
            let expected = [OTLPAttribute("tenant", "acme"), OTLPAttribute("zeta", "z")]
            #expect(item.span.attributes == expected)
            #expect(reader.attributes == (reads ? [expected] : []))
        }
    }

    /// A value whose description counts how often it was asked for.
    final class Described: CustomStringConvertible, @unchecked Sendable {
        private let lock = NSLock()
        private var calls = 0
        var count: Int { lock.withLock { calls } }
        var description: String {
            lock.withLock {
                calls += 1; return "described"
            }
        }
    }

    @Test("With two outputs, a span's attributes are converted once and both get the same values")
    func fanOutConvertsOnce() throws {
        let file = Capture()
        let collector = Capture()
        let tracer = OTLPTracer(
            stage: OTLPFanOutStage<OTLPScopedSpan>(stages: [file, collector]), scope: OTLPInstrumentationScope(name: "tests"))
        let described = Described()
        let span = tracer.startSpan("checkout")
        span.attributes["value"] = SpanAttribute.stringConvertible(described)
        span.end()
        let first = try #require(file.items.first)
        let second = try #require(collector.items.first)
        #expect(!first.hasPendingAttributes && !second.hasPendingAttributes)
        #expect(first.span == second.span)
        #expect(first.span.attributes == [OTLPAttribute("value", "described")])
        #expect(described.count == 1)
    }

    @Test("A span's context, made when first read, holds the span and the values of the context it started in")
    func lazyContext() throws {
        let tracer = OTLPTracer(stage: Capture(), scope: OTLPInstrumentationScope(name: "tests"), idGenerator: OTLPSequentialIDGenerator())
        var started = ServiceContext.topLevel
        started[TenantKey.self] = "acme"
        let parent = tracer.startSpan("parent", context: started)
        // Read from several threads at once: every reader gets the same context.
        let contexts = OTLPLockedArray<OTLPSpanContext?>()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in contexts.append(parent.context.otlpSpanContext) }
        #expect(contexts.values.count == 8 && contexts.values.allSatisfy { $0 == parent.spanContext })
        #expect(parent.context[TenantKey.self] == "acme")
        // The context it started in is left as it was.
        #expect(started.otlpSpanContext == nil)

        let child = tracer.startSpan("child", context: parent.context)
        #expect(child.spanContext.traceID == parent.spanContext.traceID)
        #expect(child.context[TenantKey.self] == "acme")
        #expect(child.context.otlpSpanContext == child.spanContext)
        child.end()
        parent.end()
    }

    /// An array `depth` levels deep.
    static func nested(_ depth: Int) -> OTLPAttributeValue {
        var value = OTLPAttributeValue.string("leaf")
        for _ in 0..<depth { value = .array([value]) }
        return value
    }

    @Test(
        "The batch check for too deeply nested values, read in place: prepared spans pass, a deep scope or an unprepared deep span is dropped and counted"
    )
    func tooDeeplyNestedInPlace() {
        let deep = Self.nested(OTLPScopedSpan.maxEncodableValueNesting + 1)
        let flat = OTLPInstrumentationScope(name: "flat")
        let deepScope = OTLPInstrumentationScope(name: "deep", attributes: [OTLPAttribute("d", deep)])
        func span(_ name: String, _ attributes: [OTLPAttribute] = []) -> OTLPSpan {
            OTLPSpan(
                traceID: OTLPTraceID(high: 1, low: 1), spanID: OTLPSpanID(1), name: name, startTimeUnixNano: 1, endTimeUnixNano: 2,
                attributes: attributes)
        }
        // Prepared by the tracer's limits (they cut the deep value): passes, whatever its attributes were.
        var prepared = OTLPScopedSpan(
            scope: flat, span: span("prepared"),
            pendingAttributes: OTLPPendingSpanAttributes(attributes: ["ok": "x"], limits: .default))
        prepared.prepareForExport()
        // Prepared, but under a scope whose attributes nest too deep: the flags alone do not decide it.
        var preparedUnderDeepScope = OTLPScopedSpan(
            scope: deepScope, span: span("deep scope"), pendingAttributes: OTLPPendingSpanAttributes(attributes: [:], limits: .default))
        preparedUnderDeepScope.prepareForExport()
        // Made without the tracer (no limits applied): its values are read.
        let unpreparedDeep = OTLPScopedSpan(scope: flat, span: span("deep", [OTLPAttribute("d", deep)]))
        let unpreparedFlat = OTLPScopedSpan(scope: flat, span: span("flat", [OTLPAttribute("f", .array([.int(1)]))]))
        let counters = OTLPTelemetryCounters()
        var reports: [String] = []
        let kept = OTLPScopedSpan.droppingTooDeeplyNested(
            [prepared, preparedUnderDeepScope, unpreparedDeep, unpreparedFlat], counters: counters, reporter: "test",
            diagnostics: { reports.append($0) })
        #expect(kept.map(\.span.name) == ["prepared", "flat"])
        #expect(counters.snapshot.spansDropped == [.itemTooLarge: 2])
        #expect(reports.count == 1)
        // A batch of prepared spans alone passes as it is.
        #expect(
            OTLPScopedSpan.droppingTooDeeplyNested([prepared, prepared], counters: counters, reporter: "test", diagnostics: { _ in }).count
                == 2)
        #expect(counters.snapshot.spansDropped == [.itemTooLarge: 2])
    }
}
