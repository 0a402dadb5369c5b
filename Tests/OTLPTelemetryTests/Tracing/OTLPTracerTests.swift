import Foundation
import Testing
import Tracing
import OTLPWire
@testable import OTLPTelemetry
import OTLPTesting

@Suite("OTLPTracer")
struct OTLPTracerTests {
    let sink = OTLPMemorySink()
    let counters = OTLPTelemetryCounters()
    let clock = OTLPManualClock()
    let resource = OTLPResource(attributes: [OTLPAttribute("service.name", "tests")])

    func tracer() -> OTLPTracer {
        let exporter = OTLPStreamExporter<OTLPScopedSpan>(sink: sink, resource: resource, counters: counters)
        return OTLPTracer(
            stage: OTLPSimpleStage(exporter: exporter, counters: counters),
            scope: OTLPInstrumentationScope(name: "tests", version: "1"), idGenerator: OTLPSequentialIDGenerator(), clock: clock)
    }

    @Test("withSpan nests children under parents in one trace, with attributes, events, status and instants")
    func nesting() throws {
        let tracer = tracer()
        let start = DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: 1_000)
        let parent = tracer.startSpan("parent", ofKind: .server, at: start)
        parent.attributes["http.method"] = "GET"
        parent.attributes["retries"] = 3
        tracer.withSpan("child", context: parent.context, ofKind: .client) { child in
            child.addEvent(SpanEvent(name: "tap", at: DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: 1_500)))
            child.setStatus(SpanStatus(code: .error, message: "boom"))
        }
        parent.end(at: DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: 9_000))
        parent.end()  // a second end does nothing

        let exported = spans(try readAll(sink.bytes))
        #expect(exported.count == 2)
        let child = try #require(exported.first { $0.name == "child" })
        let root = try #require(exported.first { $0.name == "parent" })
        #expect(child.traceID == root.traceID)
        #expect(child.parentSpanID == root.spanID)
        #expect(root.parentSpanID == nil)
        #expect(root.kind == .server && child.kind == .client)
        #expect(root.startTimeUnixNano == 1_000 && root.endTimeUnixNano == 9_000)
        #expect(root.attributes == [OTLPAttribute("http.method", "GET"), OTLPAttribute("retries", .int(3))])
        #expect(child.events == [OTLPSpanEvent(name: "tap", timeUnixNano: 1_500)])
        #expect(child.status == OTLPSpanStatus(code: .error, message: "boom"))
        #expect(root.flags == 0x101)  // sampled, parent not remote
        #expect(counters.snapshot.spansExported == 2)
    }

    @Test("recordError adds an exception event; links point at other spans")
    func errorsAndLinks() throws {
        struct Failure: Error, CustomStringConvertible { var description: String { "it failed" } }
        let tracer = tracer()
        let other = tracer.startSpan("other")
        other.end()
        let span = tracer.startSpan("main")
        span.recordError(Failure())
        span.addLink(SpanLink(context: other.context, attributes: ["why": "follows"]))
        span.end()
        let main = try #require(spans(try readAll(sink.bytes)).first { $0.name == "main" })
        #expect(main.events.first?.name == "exception")
        #expect(main.events.first?.attributes.contains(OTLPAttribute("exception.message", "it failed")) == true)
        #expect(main.links.first?.spanID == other.spanContext.spanID)
        #expect(main.links.first?.attributes == [OTLPAttribute("why", "follows")])
    }

    @Test("W3C traceparent is injected and extracted; a remote parent marks the child's flags")
    func propagation() throws {
        struct DictionaryInjector: Injector {
            func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }
        }
        struct DictionaryExtractor: Extractor { func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] } }
        let tracer = tracer()
        let span = tracer.startSpan("outgoing")
        var headers: [String: String] = [:]
        tracer.inject(span.context, into: &headers, using: DictionaryInjector())
        #expect(headers["traceparent"] == span.spanContext.traceparent)

        var incoming = InstrumentationContext.topLevel
        tracer.extract(
            ["traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "tracestate": "a=b"], into: &incoming,
            using: DictionaryExtractor())
        let server = tracer.startSpan("incoming", context: incoming, ofKind: .server)
        server.end()
        let exported = try #require(spans(try readAll(sink.bytes)).first { $0.name == "incoming" })
        #expect(exported.traceID?.hex == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(exported.parentSpanID?.hex == "00f067aa0ba902b7")
        #expect(exported.traceState == "a=b")
        #expect(exported.flags == 0x301)
        #expect(OTLPSpanContext(traceparent: "00-00000000000000000000000000000000-00f067aa0ba902b7-01") == nil)
    }
}
