public import Tracing

/// A log record processor of the application's own, run before the pipeline exports (the specification's
/// `LogRecordProcessor`): it may change each record as it is emitted (add a session ID, redact a value).
///
/// Give processors to `OTLPTelemetry(configuration:logRecordProcessors:...)` or to ``OTLPLogEmitter``; they
/// run in the order given, on the emitting thread, so they MUST be quick and MUST NOT block. The
/// configuration's limits apply to what they leave. Every requirement has a default that does nothing.
public protocol OTLPLogRecordProcessor: Sendable {
    /// Called when a record is emitted, before it is exported: may change it. `context` is the context it was
    /// emitted in (its trace context is already on the record).
    func onEmit(_ record: inout OTLPScopedLogRecord, context: InstrumentationContext?)
    /// Called once when the pipeline shuts down, after it exported what it held.
    func shutdown()
}

extension OTLPLogRecordProcessor {
    /// Leaves the record as it is.
    public func onEmit(_ record: inout OTLPScopedLogRecord, context: InstrumentationContext?) {}
    /// Does nothing.
    public func shutdown() {}
}
