import Foundation
public import Logging
public import OTLPWire
internal import Tracing

/// The whole pipeline for one process: resource, exporters, batching, a tracer and a log emitter,
/// set up from one ``OTLPTelemetryConfiguration``.
///
/// ```swift
/// let telemetry = OTLPTelemetry(configuration: .init(
///     service: .init(name: "checkout"),
///     traces: .init(path: "traces.u32be.bin"), logs: .init(path: "logs.u32be.bin")))
/// telemetry.bootstrap()                       // swift-distributed-tracing and swift-log
/// withSpan("checkout") { _ in Logger(label: "cart").info("paid") }
/// telemetry.shutdown()                        // exports everything; reports drops
/// ```
///
/// A signal with neither an output path nor a collector (the `otlp` section, with an `exporterFactory`) is
/// not exported: its items are counted as dropped (`disabled`).
public final class OTLPTelemetry: Sendable {
    /// The configuration in effect: the one given, with numeric values clamped into their documented ranges
    /// (each value clamped is reported to the diagnostics hook at start).
    public let configuration: OTLPTelemetryConfiguration
    /// The resource every record is written under: detected, or the one given.
    public let resource: OTLPResource
    /// What the pipeline received, exported and dropped so far: the file outputs (and the disabled signals).
    public let counters: OTLPTelemetryCounters
    /// What was handed to the collector of the configuration's `otlp` section, delivered (exported), and
    /// dropped (`rejected`, `export_failed`, ...), with retries; all zero without one.
    public let deliveryCounters: OTLPTelemetryCounters
    /// The tracer ``bootstrap(logLevel:)`` installs for swift-distributed-tracing; usable directly too.
    public let tracer: OTLPTracer
    /// The log emitter behind swift-log's handler; for records with explicit timestamps, bodies or event names.
    public let logEmitter: OTLPLogEmitter
    /// Errors opening the file outputs at start: a symbolic link, an output another pipeline is writing
    /// (`EWOULDBLOCK`, naming it), a missing directory. Each was also reported to the diagnostics hook. The
    /// pipeline runs anyway: it tries to open the output again at every batch and counts what it cannot
    /// write as dropped (`write_failed`). Empty when every output opened.
    public let openErrors: [OTLPWriteError]
    /// The file outputs, closed (and their locks released) at shutdown.
    private let fileSinks: [OTLPRotatingFileSink]
    private let spanStage: any OTLPExportStage<OTLPScopedSpan>
    private let logStage: any OTLPExportStage<OTLPScopedLogRecord>
    private let clock: any OTLPClock
    private let idGenerator: any OTLPIDGenerator
    private let spanProcessors: [any OTLPSpanProcessor]
    private let logRecordProcessors: [any OTLPLogRecordProcessor]
    private let diagnostics: @Sendable (String) -> Void
    /// Set by ``shutdown()``: a telemetry released without it says so.
    private let shutdownCalled = OTLPShutdownFlag()

    /// - Parameters:
    ///   - configuration: outputs, rotation, batching, limits and sampling; out-of-range values are
    ///     clamped and reported to `diagnostics`.
    ///   - scope: the instrumentation scope of spans and log records made through ``tracer``,
    ///     ``logEmitter`` and swift-log; default: the service name.
    ///   - resource: replaces the detected resource (for byte-stable output, or a resource built elsewhere).
    ///   - clock: the time of spans and log records (default: the system's real-time clock).
    ///   - idGenerator: the source of trace and span IDs (default: random).
    ///   - exporterFactory: makes the exporters that deliver to the collector of the configuration's `otlp`
    ///     section (the OTLPHTTP library's `OTLPHTTPExporterFactory`); without one, that section is ignored
    ///     and reported to `diagnostics`.
    ///   - spanProcessors: the application's span processors, run in order before the pipeline's (they may
    ///     set attributes on starting spans); none by default.
    ///   - logRecordProcessors: the application's log record processors, run in order before the pipeline's
    ///     (they may change each record); none by default.
    ///   - diagnostics: where configuration problems, output errors and drops are reported (default:
    ///     standard error).
    public init(
        configuration: OTLPTelemetryConfiguration = .default, scope: OTLPInstrumentationScope? = nil,
        resource: OTLPResource? = nil,
        clock: any OTLPClock = OTLPSystemClock(), idGenerator: any OTLPIDGenerator = OTLPRandomIDGenerator(),
        exporterFactory: (any OTLPExporterFactory)? = nil,
        spanProcessors: [any OTLPSpanProcessor] = [], logRecordProcessors: [any OTLPLogRecordProcessor] = [],
        diagnostics: @escaping @Sendable (String) -> Void = OTLPDiagnostics.standardError
    ) {
        self.spanProcessors = spanProcessors
        self.logRecordProcessors = logRecordProcessors
        for problem in configuration.problems {
            let consequence =
                problem.keyPath.hasPrefix("otlp.") && problem.keyPath.hasSuffix("endpoint")
                ? "a signal whose endpoint is unusable is not delivered to a collector"
                : problem.keyPath.hasPrefix("otlp.") && problem.keyPath.contains(".headers.")
                    ? "the header is not sent" : "out-of-range values are clamped into range"
            diagnostics("OTLPWire telemetry: \(problem) (\(consequence))")
        }
        let configuration = configuration.clamped
        self.configuration = configuration
        self.clock = clock
        self.idGenerator = idGenerator
        self.diagnostics = diagnostics
        let counters = OTLPTelemetryCounters()
        self.counters = counters
        var resource =
            resource
            ?? OTLPResourceDetector.detect(
                serviceName: configuration.service.name, serviceVersion: configuration.service.version,
                extra: configuration.service.attributes.sorted { $0.key < $1.key }.map { OTLPAttribute($0.key, .string($0.value)) })
        // The resource is in every record: one huge value would make every record unreadable.
        if let length = configuration.limits.attributeValueLengthLimit {
            resource.attributes = resource.attributes.map { OTLPAttribute($0.key, $0.value.map { OTLPLimits.truncate($0, length) }) }
        }
        self.resource = resource
        let scope = scope ?? OTLPInstrumentationScope(name: configuration.service.name ?? "otlpwire")

        var openErrors: [OTLPWriteError] = []
        var fileSinks: [OTLPRotatingFileSink] = []
        func sink(_ output: OTLPTelemetryConfiguration.Output, _ signal: OTLPSignal) -> (any OTLPByteSink)? {
            switch output.path {
            case nil: return nil
            case "-", "stdout": return OTLPFileSink.standardOutput
            case "stderr": return OTLPFileSink.standardError
            case let path?:
                let sink = OTLPRotatingFileSink(
                    path: path, rotation: configuration.rotation, signal: signal, counters: counters, clock: clock, diagnostics: diagnostics
                )
                do throws(OTLPWriteError) {
                    try sink.open()
                } catch {
                    openErrors.append(error)
                    diagnostics("OTLP telemetry: \(error); \(signal.noun(2)) are dropped (write_failed) until it opens")
                }
                fileSinks.append(sink)
                return sink
            }
        }
        var deliveryCounters: OTLPTelemetryCounters?
        if let otlp = configuration.otlp, let warning = OTLPExporterConfiguration.signalPathWarning(endpoint: otlp.endpoint) {
            diagnostics("OTLPWire telemetry: \(warning)")
        }
        if configuration.otlp != nil {
            if exporterFactory == nil {
                diagnostics(
                    "OTLPWire telemetry: the configuration's otlp section is ignored: no exporter factory was given (link OTLPHTTP and pass OTLPHTTPExporterFactory())"
                )
            } else {
                deliveryCounters = OTLPTelemetryCounters()
            }
        }
        /// The export stage of one signal: its file output and its collector, each through a batch stage of
        /// its own; the signal is disabled (counted as dropped) with neither.
        func stage<Item: OTLPExportable>(_ type: Item.Type, output: OTLPTelemetryConfiguration.Output) -> any OTLPExportStage<Item> {
            let batch = configuration.batch(for: Item.signal)
            var stages: [any OTLPExportStage<Item>] = []
            if let fileSink = sink(output, Item.signal) {
                stages.append(
                    OTLPBatchStage(
                        exporter: OTLPStreamExporter<Item>(
                            sink: fileSink, framing: output.framing, gzip: output.gzip, durability: configuration.durability,
                            resource: resource,
                            counters: counters, diagnostics: diagnostics),
                        counters: counters, configuration: batch, diagnostics: diagnostics))
            }
            if let exporterFactory, let deliveryCounters, var endpoint = configuration.otlp?.resolved(for: Item.signal) {
                // The spool's durability is the pipeline's unless the spool sets its own.
                if endpoint.spool != nil, endpoint.spool?.durability == nil { endpoint.spool?.durability = configuration.durability }
                let exporter = exporterFactory.makeExporter(
                    for: Item.self, endpoint: endpoint, resource: resource, counters: deliveryCounters, diagnostics: diagnostics)
                stages.append(
                    OTLPBatchStage(
                        exporter: OTLPAnyExporter(base: exporter), counters: deliveryCounters, configuration: batch,
                        diagnostics: diagnostics))
            }
            switch stages.count {
            case 0: return OTLPDisabledStage<Item>(counters: counters)
            case 1: return stages[0]
            default: return OTLPFanOutStage(stages: stages)
            }
        }
        spanStage = stage(OTLPScopedSpan.self, output: configuration.traces)
        logStage = stage(OTLPScopedLogRecord.self, output: configuration.logs)
        if spanStage is OTLPDisabledStage<OTLPScopedSpan>, logStage is OTLPDisabledStage<OTLPScopedLogRecord> {
            // Said once now, not as drops at shutdown (regression: a configuration without outputs looked like
            // lost data only when the program ended).
            diagnostics(
                "OTLPWire telemetry: nothing is exported: no output for spans or log records (traces.path, logs.path and otlp are unset, or switched off); they are made and discarded"
            )
        }
        self.deliveryCounters = deliveryCounters ?? OTLPTelemetryCounters()
        tracer = OTLPTracer(
            stage: spanStage, scope: scope, idGenerator: idGenerator, clock: clock,
            sampler: configuration.sampling.sampler, limits: configuration.limits, spanProcessors: spanProcessors)
        logEmitter = OTLPLogEmitter(
            stage: logStage, scope: scope, clock: clock, limits: configuration.limits, logRecordProcessors: logRecordProcessors)
        self.openErrors = openErrors
        self.fileSinks = fileSinks
    }

    /// A tracer for another instrumentation scope, sharing this pipeline (exporters, sampler, limits,
    /// processors).
    public func tracer(scope: OTLPInstrumentationScope) -> OTLPTracer {
        OTLPTracer(
            stage: spanStage, scope: scope, idGenerator: idGenerator, clock: clock,
            sampler: configuration.sampling.sampler, limits: configuration.limits, spanProcessors: spanProcessors)
    }

    /// A log emitter for another instrumentation scope, sharing this pipeline.
    public func logEmitter(scope: OTLPInstrumentationScope) -> OTLPLogEmitter {
        OTLPLogEmitter(
            stage: logStage, scope: scope, clock: clock, limits: configuration.limits, logRecordProcessors: logRecordProcessors)
    }

    /// A swift-log handler that emits through this pipeline.
    public func logHandler(label: String, logLevel: Logger.Level = .info) -> OTLPLogHandler {
        OTLPLogHandler(label: label, emitter: logEmitter, logLevel: logLevel, clock: clock)
    }

    /// Makes this pipeline the process's tracer (swift-distributed-tracing) and log handler (swift-log).
    /// Both systems can be bootstrapped once per process.
    public func bootstrap(logLevel: Logger.Level = .info) {
        InstrumentationSystem.bootstrap(tracer)
        LoggingSystem.bootstrap { [self] label in logHandler(label: label, logLevel: logLevel) }
    }

    /// Exports everything received so far.
    public func forceFlush() {
        spanStage.forceFlush()
        logStage.forceFlush()
    }

    deinit {
        guard !shutdownCalled.isSet else { return }
        // Forgetting shutdown() loses what is queued when the program ends: said, with what it held
        // (regression: lost with no word).
        let files = counters.snapshot
        let delivery = deliveryCounters.snapshot
        let spans =
            max(0, files.spansReceived - files.spansExported - files.totalSpansDropped)
            + max(0, delivery.spansReceived - delivery.spansExported - delivery.totalSpansDropped)
        let records =
            max(0, files.logRecordsReceived - files.logRecordsExported - files.totalLogRecordsDropped)
            + max(0, delivery.logRecordsReceived - delivery.logRecordsExported - delivery.totalLogRecordsDropped)
        diagnostics(
            "OTLPWire telemetry released without shutdown(): \(spans) \(OTLPSignal.traces.noun(spans)) and \(records) \(OTLPSignal.logs.noun(records)) not yet exported are lost if the program ends now, and the outputs stay open; call shutdown() before the program ends"
        )
    }

    /// Exports everything received so far and stops; reports to the diagnostics hook if anything was dropped.
    /// Closes the output files and releases their locks, so another pipeline may write the same paths.
    public func shutdown() {
        shutdownCalled.set()
        // The application's processors first, in chain order (what they emit then is still exported), each
        // once even when installed for both signals.
        var shutDown = Set<ObjectIdentifier>()
        func isFirstShutdown(_ processor: Any) -> Bool {
            !(type(of: processor) is AnyClass) || shutDown.insert(ObjectIdentifier(processor as AnyObject)).inserted
        }
        for processor in spanProcessors where isFirstShutdown(processor) { processor.shutdown() }
        for processor in logRecordProcessors where isFirstShutdown(processor) { processor.shutdown() }
        // Both signals at once: each may wait up to the export timeout for a collector.
        let spans = DispatchGroup()
        let spanStage = spanStage
        DispatchQueue.global().async(group: spans) { spanStage.shutdown() }
        logStage.shutdown()
        spans.wait()
        for sink in fileSinks { sink.close() }
        // A signal switched off (no output) is not data lost: it is left out of the report.
        var snapshot = counters.snapshot
        snapshot.spansDropped[.disabled] = nil
        snapshot.logRecordsDropped[.disabled] = nil
        let delivery = deliveryCounters.snapshot
        let advice = queueAdvice(snapshot, delivery)
        if snapshot.totalSpansDropped > 0 || snapshot.totalLogRecordsDropped > 0 || snapshot.writeErrors > 0 {
            diagnostics("OTLPWire telemetry dropped data: \(snapshot)\(advice)")
        }
        if delivery.totalSpansDropped > 0 || delivery.totalLogRecordsDropped > 0 {
            diagnostics("OTLPWire telemetry dropped data meant for the collector: \(delivery)\(advice)")
        }
    }

    /// What to raise when items were dropped for a full queue: the setting and its variable, and the size
    /// that would have held the run's peak.
    private func queueAdvice(_ snapshots: OTLPTelemetryCounters.Snapshot...) -> String {
        var advice: [String] = []
        let spansDropped = snapshots.reduce(0) { $0 + $1.spansDropped[.queueFull, default: 0] }
        if spansDropped > 0 {
            advice.append(
                "raise batch.maxQueueSize (OTEL_BSP_MAX_QUEUE_SIZE) from \(configuration.batch(for: .traces).maxQueueSize) to at least \(spanStage.peakQueueDemand) to hold this run's peak of spans"
            )
        }
        let recordsDropped = snapshots.reduce(0) { $0 + $1.logRecordsDropped[.queueFull, default: 0] }
        if recordsDropped > 0 {
            let key =
                configuration.logsBatch == nil
                ? "batch.maxQueueSize (OTEL_BSP_MAX_QUEUE_SIZE; logsBatch.maxQueueSize or OTEL_BLRP_MAX_QUEUE_SIZE for log records alone)"
                : "logsBatch.maxQueueSize (OTEL_BLRP_MAX_QUEUE_SIZE)"
            advice.append(
                "raise \(key) from \(configuration.batch(for: .logs).maxQueueSize) to at least \(logStage.peakQueueDemand) to hold this run's peak of log records"
            )
        }
        if !advice.isEmpty {
            advice.append("or make callers wait for room instead: batch.whenFull = wait (OTEL_BSP_WHEN_FULL=wait)")
        }
        return advice.isEmpty ? "" : ". Dropped for a full queue (queue_full): " + advice.joined(separator: "; ")
    }
}

/// Whether ``OTLPTelemetry/shutdown()`` was called; set from any thread.
private final class OTLPShutdownFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool { lock.withLock { value } }

    func set() { lock.withLock { value = true } }
}
