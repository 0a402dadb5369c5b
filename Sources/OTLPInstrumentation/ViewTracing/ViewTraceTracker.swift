internal import Foundation
internal import OTLPTelemetry
public import OTLPWire
public import Tracing

/// Traces one view's lifecycle, platform-neutral: what the SwiftUI wrapper and the UIKit view controller
/// variant drive.
///
/// The span tree, as the view tracing reference defines it (all spans of kind `client`):
/// ```
/// {viewName}               root: view initialisation → first disappear; view.name, view.type, custom attributes
///                          (every span also carries app.screen.name, the semantic conventions' name for the view)
/// ├── {viewName}.body      one per body evaluation; view.lifecycle=body, view.body.evaluation (1, 2, …)
/// ├── {viewName}.onAppear  point in time; view.lifecycle=onAppear, view.appear.count
/// └── {viewName}.onDisappear  point in time; view.lifecycle=onDisappear, view.disappear.count
/// ```
/// The root span is made once (at the first body evaluation or appearance, starting at initialisation);
/// re-appearances add `.onAppear` children only. The tracker keeps its state in this reference type, so
/// the view that owns it is not re-rendered by it. When disabled, every method returns at once: no spans,
/// no work. Meant for the main thread, as view lifecycles are; it is also safe from other threads.
public final class ViewTraceTracker<T: Tracer>: @unchecked Sendable {
    /// Default instrumentation scope of view spans.
    public static var scope: OTLPInstrumentationScope { OTLPInstrumentationScope(name: "aws-opentelemetry-swift", version: "1.0.0") }

    /// The attribute set to `true` on view spans recovered unended after a crash.
    package static var interruptedAttribute: String { "view.interrupted" }

    /// The name of the view's spans (`{viewName}`, `{viewName}.body`, …).
    package let viewName: String
    /// Whether spans are made: `false` when disabled at initialisation or without a tracer.
    @usableFromInline
    package let isEnabled: Bool
    private let viewType: String
    private let attributes: [String: String]
    private let tracer: T?
    private let clock: any OTLPClock
    private let initializationUnixNano: UInt64
    private let lock = NSLock()
    private var root: T.Span?
    private var rootEnded = false
    /// Body evaluations traced so far.
    private(set) public var bodyEvaluationCount = 0
    /// Appearances traced so far.
    private(set) public var appearCount = 0
    /// Disappearances traced so far.
    private(set) public var disappearCount = 0

    /// - Parameters:
    ///   - viewName: the name of the view's spans.
    ///   - viewType: `swiftui` (default) or `uikit`.
    ///   - attributes: added to the root span (`view.name` and `view.type` are always there).
    ///   - tracer: `nil` disables tracing, as does `isEnabled: false`.
    ///   - isEnabled: `false` makes every method return at once, with no spans.
    ///   - clock: the time of spans (default: the system's real-time clock).
    public init(
        _ viewName: String, viewType: String = "swiftui", attributes: [String: String] = [:], tracer: T?, isEnabled: Bool = true,
        clock: any OTLPClock = OTLPSystemClock()
    ) {
        self.viewName = viewName
        self.viewType = viewType
        self.attributes = attributes
        // A pipeline's tracer journals view spans (when its open-span journal is open).
        if let otlp = tracer as? OTLPTracer, let journaling = otlp.journaling(interruptedAttribute: Self.interruptedAttribute) as? T {
            self.tracer = journaling
        } else {
            self.tracer = tracer
        }
        self.isEnabled = isEnabled && tracer != nil
        self.clock = clock
        initializationUnixNano = self.isEnabled ? clock.nowUnixNano() : 0
    }

    /// Evaluates a view body inside a `{viewName}.body` span.
    @inlinable
    public func body<R>(_ evaluate: () throws -> R) rethrows -> R {
        guard isEnabled else { return try evaluate() }
        let span = bodyWillEvaluate()
        defer { bodyDidEvaluate(span) }
        return try evaluate()
    }

    @usableFromInline
    func bodyWillEvaluate() -> T.Span? {
        guard let tracer else { return nil }
        let count = lock.withLock {
            bodyEvaluationCount += 1; return bodyEvaluationCount
        }
        let parent = rootSpan()
        let span = tracer.startSpan("\(viewName).body", context: parent.context, ofKind: .client, at: Self.instant(clock.nowUnixNano()))
        span.attributes["view.name"] = viewName
        span.attributes["app.screen.name"] = viewName
        span.attributes["view.type"] = viewType
        span.attributes["view.lifecycle"] = "body"
        span.attributes["view.body.evaluation"] = count
        return span
    }

    @usableFromInline
    func bodyDidEvaluate(_ span: T.Span?) {
        span?.end(at: Self.instant(clock.nowUnixNano()))
    }

    /// The view appeared: a `{viewName}.onAppear` point-in-time span.
    public func onAppear() {
        guard isEnabled else { return }
        let count = lock.withLock {
            appearCount += 1; return appearCount
        }
        pointSpan("onAppear", countKey: "view.appear.count", count: count)
    }

    /// The view disappeared: a `{viewName}.onDisappear` point-in-time span, and the root span ends (once).
    public func onDisappear() {
        guard isEnabled else { return }
        let count = lock.withLock {
            disappearCount += 1; return disappearCount
        }
        pointSpan("onDisappear", countKey: "view.disappear.count", count: count)
        let toEnd: T.Span? = lock.withLock {
            guard !rootEnded, let root else { return nil }
            rootEnded = true
            return root
        }
        toEnd?.end(at: Self.instant(clock.nowUnixNano()))
    }

    private func pointSpan(_ lifecycle: String, countKey: String, count: Int) {
        guard let tracer else { return }
        let parent = rootSpan()
        let now = Self.instant(clock.nowUnixNano())
        let span = tracer.startSpan("\(viewName).\(lifecycle)", context: parent.context, ofKind: .client, at: now)
        span.attributes["view.name"] = viewName
        span.attributes["app.screen.name"] = viewName
        span.attributes["view.type"] = viewType
        span.attributes["view.lifecycle"] = lifecycle
        span.attributes[countKey] = count
        span.end(at: now)
    }

    /// The root span, made once, starting at the view's initialisation.
    private func rootSpan() -> T.Span {
        lock.withLock {
            if let root { return root }
            let span = tracer!.startSpan(viewName, context: .topLevel, ofKind: .client, at: Self.instant(initializationUnixNano))
            span.attributes["view.name"] = viewName
            span.attributes["app.screen.name"] = viewName
            span.attributes["view.type"] = viewType
            for (key, value) in attributes { span.attributes[key] = value }
            (span as? OTLPTracingSpan)?.journalCheckpoint()
            root = span
            return span
        }
    }

    static func instant(_ unixNano: UInt64) -> DefaultTracerClock.Timestamp {
        DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: unixNano)
    }
}
