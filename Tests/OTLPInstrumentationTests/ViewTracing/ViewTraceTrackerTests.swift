import Foundation
import Testing
import OTLPTelemetry
import OTLPTesting
import OTLPWire
@testable import OTLPInstrumentation

@Suite("View tracing")
struct ViewTraceTrackerTests {
    static func attribute(_ span: OTLPSpan, _ key: String) -> OTLPAttributeValue? {
        span.attributes.first { $0.key == key }?.value ?? nil
    }

    func tracker(_ recorder: OTLPSpanRecorder, enabled: Bool = true) -> ViewTraceTracker<OTLPTracer> {
        ViewTraceTracker(
            "HomeScreen", attributes: ["user_id": "12345"], tracer: recorder.tracer(scope: ViewTraceTracker<OTLPTracer>.scope),
            isEnabled: enabled, clock: recorder.clock)
    }

    @Test("init → body ×2 → appear → disappear: the reference span tree, counters and times")
    func lifecycle() throws {
        let recorder = OTLPSpanRecorder()
        let start = recorder.clock.nowUnixNano()
        let view = tracker(recorder)
        recorder.clock.advance(seconds: 0.01)
        view.body { recorder.clock.advance(seconds: 0.002) }
        view.onAppear()
        view.body { recorder.clock.advance(seconds: 0.001) }
        recorder.clock.advance(seconds: 5)
        view.onDisappear()
        let all = try recorder.spans()
        #expect(all.allSatisfy { $0.scope?.name == "aws-opentelemetry-swift" && $0.scope?.version == "1.0.0" })
        let spans = all.map(\.span)
        #expect(
            spans.map(\.name).sorted() == [
                "HomeScreen", "HomeScreen.body", "HomeScreen.body", "HomeScreen.onAppear", "HomeScreen.onDisappear",
            ])
        let root = try #require(spans.first { $0.name == "HomeScreen" })
        #expect(root.startTimeUnixNano == start && root.endTimeUnixNano == start + 5_013_000_000)
        #expect(root.kind == .client)
        #expect(Self.attribute(root, "view.name") == .string("HomeScreen") && Self.attribute(root, "view.type") == .string("swiftui"))
        #expect(Self.attribute(root, "user_id") == .string("12345"))
        // The semantic conventions' name for the same thing, on every span of the view.
        #expect(spans.allSatisfy { Self.attribute($0, "app.screen.name") == .string("HomeScreen") })
        let bodies = spans.filter { $0.name == "HomeScreen.body" }
        #expect(bodies.map { Self.attribute($0, "view.body.evaluation") } == [.int(1), .int(2)])
        #expect(bodies.allSatisfy { Self.attribute($0, "view.lifecycle") == .string("body") && $0.parentSpanID == root.spanID })
        #expect(bodies[0].durationNano == 2_000_000)
        let appear = try #require(spans.first { $0.name == "HomeScreen.onAppear" })
        #expect(appear.durationNano == 0 && Self.attribute(appear, "view.appear.count") == .int(1) && appear.parentSpanID == root.spanID)
        let disappear = try #require(spans.first { $0.name == "HomeScreen.onDisappear" })
        #expect(
            Self.attribute(disappear, "view.lifecycle") == .string("onDisappear")
                && Self.attribute(disappear, "view.disappear.count") == .int(1))
    }

    @Test("re-appearance adds onAppear children only; the root is made and ended once")
    func reappearance() throws {
        let recorder = OTLPSpanRecorder()
        let view = tracker(recorder)
        view.onAppear()
        view.onDisappear()
        view.onAppear()
        view.onDisappear()
        let spans = try recorder.spans().map(\.span)
        #expect(spans.filter { $0.name == "HomeScreen" }.count == 1)
        #expect(spans.filter { $0.name == "HomeScreen.onAppear" }.map { Self.attribute($0, "view.appear.count") } == [.int(1), .int(2)])
        #expect(spans.filter { $0.name == "HomeScreen.onDisappear" }.count == 2)
    }

    @Test("disappear without appear: the root still ends, with its disappear child")
    func disappearOnly() throws {
        let recorder = OTLPSpanRecorder()
        tracker(recorder).onDisappear()
        let spans = try recorder.spans().map(\.span)
        let root = try #require(spans.first { $0.name == "HomeScreen" })
        #expect(spans.first { $0.name == "HomeScreen.onDisappear" }?.parentSpanID == root.spanID)
    }

    @Test("disabled: no spans and the body still runs")
    func disabled() throws {
        let recorder = OTLPSpanRecorder()
        let view = tracker(recorder, enabled: false)
        var ran = 0
        view.body { ran += 1 }
        view.onAppear()
        view.onDisappear()
        #expect(ran == 1)
        #expect(try recorder.spans().isEmpty)
        #expect(recorder.counters.snapshot.spansReceived == 0)
        let noTracer = ViewTraceTracker<OTLPTracer>("X", tracer: nil)
        #expect(!noTracer.isEnabled)
    }
}
