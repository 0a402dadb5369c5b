public import OTLPWire
public import Tracing

/// Emits log records directly, in the shape of OpenTelemetry's Logs Bridge API: for records that need an
/// explicit timestamp, a body of any value type, or an event name.
///
/// Records without an observed time get the clock's time; records without trace context get the active
/// span's (from `InstrumentationContext.current`).
public struct OTLPLogEmitter: Sendable {
    /// The instrumentation scope of every record emitted here.
    public let scope: OTLPInstrumentationScope
    let processor: any OTLPProcessor<OTLPScopedLogRecord>
    let clock: any OTLPClock
    let limits: OTLPLimits
    /// The application's processors, which may change each record before it goes to ``processor``.
    let logRecordProcessors: [any OTLPLogRecordProcessor]

    /// An emitter that hands records under `scope` to `processor`, timed by `clock`, within `limits`, after
    /// `logRecordProcessors` (the application's, in order; none by default, which costs nothing) changed them.
    public init(
        processor: any OTLPProcessor<OTLPScopedLogRecord>, scope: OTLPInstrumentationScope, clock: any OTLPClock = OTLPSystemClock(),
        limits: OTLPLimits = .default, logRecordProcessors: [any OTLPLogRecordProcessor] = []
    ) {
        self.processor = processor
        self.scope = scope
        self.clock = clock
        self.limits = limits
        self.logRecordProcessors = logRecordProcessors
    }

    /// Emits `record`, filling in the observed time and trace context when missing.
    public func emit(_ record: OTLPLogRecord, context: InstrumentationContext? = InstrumentationContext.current) {
        var record = record
        if record.observedTimeUnixNano == 0 { record.observedTimeUnixNano = clock.nowUnixNano() }
        if record.traceID == nil, let spanContext = context?.otlpSpanContext {
            record.traceID = spanContext.traceID
            record.spanID = spanContext.spanID
            record.flags = UInt32(spanContext.traceFlags)
        }
        guard !logRecordProcessors.isEmpty else {
            limits.apply(to: &record)
            processor.onEnd(OTLPScopedLogRecord(scope: scope, record: record))
            return
        }
        var scoped = OTLPScopedLogRecord(scope: scope, record: record)
        for logRecordProcessor in logRecordProcessors { logRecordProcessor.onEmit(&scoped, context: context) }
        // The limits hold for what the processors added too.
        limits.apply(to: &scoped.record)
        processor.onEnd(scoped)
    }

    /// Forces the processor to export what it holds.
    @discardableResult
    public func forceFlush() -> Bool { processor.forceFlush() }
}
