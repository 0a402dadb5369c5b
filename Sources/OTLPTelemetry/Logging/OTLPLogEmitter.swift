public import OTLPWire
public import Tracing

/// Emits log records directly, in the shape of OpenTelemetry's Logs Bridge API: for records that need an
/// explicit timestamp, a body of any value type, or an event name.
///
/// Records without an observed time get the clock's time; records without trace context get the active
/// span's (from `InstrumentationContext.current`).
public struct OTLPLogEmitter: Sendable {
    /// The instrumentation scope of every record emitted here.
    package let scope: OTLPInstrumentationScope
    /// Where records go: the pipeline's export stage.
    let stage: any OTLPExportStage<OTLPScopedLogRecord>
    let clock: any OTLPClock
    let limits: OTLPLimits
    /// The application's processors, which may change each record before it goes to ``stage``.
    let logRecordProcessors: [any OTLPLogRecordProcessor]

    /// An emitter whose records go to `exporter`: in batches from a worker thread of the emitter's own
    /// (`batch`, the specification's batching; the default), or one at a time on the emitting thread
    /// (`batch: nil`). Call ``shutdown()`` at the end: it exports what is still queued and shuts the exporter
    /// down.
    ///
    /// - Parameters:
    ///   - exporter: where records go (``OTLPStreamExporter``, the OTLPHTTP library's exporters, or one of
    ///     your own).
    ///   - batch: the batching settings (values out of range are clamped), or `nil` to export each record as
    ///     it is emitted.
    ///   - counters: where records received and dropped before the exporter are counted: the exporter's own.
    ///   - scope: the instrumentation scope of every record emitted here.
    ///   - clock: the observed time of records that have none (default: the system's real-time clock).
    ///   - limits: default: the specification's.
    ///   - logRecordProcessors: the application's processors, run in order before the exporter (see
    ///     ``OTLPLogRecordProcessor``); none by default, which costs nothing.
    public init<Exporter: OTLPExporter<OTLPScopedLogRecord>>(
        exporter: Exporter, batch: OTLPBatchConfiguration? = .default, counters: OTLPTelemetryCounters,
        scope: OTLPInstrumentationScope, clock: any OTLPClock = OTLPSystemClock(), limits: OTLPLimits = .default,
        logRecordProcessors: [any OTLPLogRecordProcessor] = []
    ) {
        let stage: any OTLPExportStage<OTLPScopedLogRecord> =
            if let batch {
                OTLPBatchStage(exporter: exporter, counters: counters, configuration: batch)
            } else {
                OTLPSimpleStage(exporter: exporter, counters: counters)
            }
        self.init(stage: stage, scope: scope, clock: clock, limits: limits, logRecordProcessors: logRecordProcessors)
    }

    /// An emitter that hands records under `scope` to `stage`, timed by `clock`, within `limits`, after
    /// `logRecordProcessors` (the application's, in order; none by default, which costs nothing) changed them.
    package init(
        stage: any OTLPExportStage<OTLPScopedLogRecord>, scope: OTLPInstrumentationScope, clock: any OTLPClock = OTLPSystemClock(),
        limits: OTLPLimits = .default, logRecordProcessors: [any OTLPLogRecordProcessor] = []
    ) {
        self.stage = stage
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
            stage.onEnd(OTLPScopedLogRecord(scope: scope, record: record))
            return
        }
        var scoped = OTLPScopedLogRecord(scope: scope, record: record)
        for logRecordProcessor in logRecordProcessors { logRecordProcessor.onEmit(&scoped, context: context) }
        // The limits hold for what the processors added too.
        limits.apply(to: &scoped.record)
        stage.onEnd(scoped)
    }

    /// Exports every record emitted so far; returns `false` if that did not finish within the export timeout.
    @discardableResult
    public func forceFlush() -> Bool { stage.forceFlush() }

    /// Exports every record emitted so far, then stops: the exporter is shut down and later records are
    /// dropped (counted, `shut_down`). For an emitter made with
    /// ``init(exporter:batch:counters:scope:clock:limits:logRecordProcessors:)``; the emitters of an
    /// ``OTLPTelemetry`` stop with its ``OTLPTelemetry/shutdown()``.
    public func shutdown() { stage.shutdown() }
}
