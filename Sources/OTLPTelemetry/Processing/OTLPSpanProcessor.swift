public import Tracing

/// A span processor of the application's own, run before the pipeline exports (the specification's
/// `SpanProcessor`): it sees each sampled span as it starts, and may set attributes on it then (a session ID,
/// a user's tenant), and sees it again when it ended.
///
/// Give processors to `OTLPTelemetry(configuration:spanProcessors:...)` or to ``OTLPTracer``; they run in the
/// order given, on the thread that starts or ends the span, so they MUST be quick and MUST NOT block.
/// Unsampled spans are not shown to them. Every requirement has a default that does nothing.
public protocol OTLPSpanProcessor: Sendable {
    /// Called when a span starts, before the caller gets it: the place to set attributes on it
    /// (`span.attributes["session.id"] = ...`). `parentContext` is the context the span was started in.
    func onStart(_ span: OTLPTracingSpan, parentContext: InstrumentationContext)
    /// Called when ``OTLPTracer/export(_:)`` adopts a span made elsewhere (a MetricKit payload's, a replay's),
    /// before its ``onEnd(_:)``: such a span never started here, so this stands in for
    /// ``onStart(_:parentContext:)`` and may change it (add attributes).
    func onAdopt(_ span: inout OTLPScopedSpan)
    /// Called when a span ended, before it is exported, with the span as it will be exported.
    func onEnd(_ span: OTLPScopedSpan)
    /// Called once when the pipeline shuts down, after it exported what it held.
    func shutdown()
}

extension OTLPSpanProcessor {
    /// Does nothing.
    public func onStart(_ span: OTLPTracingSpan, parentContext: InstrumentationContext) {}
    /// Does nothing.
    public func onAdopt(_ span: inout OTLPScopedSpan) {}
    /// Does nothing.
    public func onEnd(_ span: OTLPScopedSpan) {}
    /// Does nothing.
    public func shutdown() {}
}
