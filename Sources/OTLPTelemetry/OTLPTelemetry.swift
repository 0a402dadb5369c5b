import Foundation
public import Logging
public import OTLPWire
internal import Tracing

/// The whole pipeline for one process: resource, exporters, batching, a tracer and a log emitter,
/// set up from one ``OTLPTelemetryConfiguration``.
///
/// ```swift
/// // Compiled copy: Tests/DocumentationExamples/OTLPTelemetry/OTLPTelemetryDocComments.swift
/// func runOneCheckout() {
///     let telemetry = OTLPTelemetry(
///         configuration: .init(
///             service: .init(name: "checkout"),
///             traces: .init(path: "traces.u32be.bin"), logs: .init(path: "logs.u32be.bin")))
///     telemetry.bootstrap()  // swift-distributed-tracing and swift-log
///     withSpan("checkout") { _ in Logger(label: "cart").info("paid") }
///     telemetry.shutdown()  // exports everything; reports drops
/// }
/// ```
///
/// A program that bootstraps swift-log itself calls ``bootstrapTracing()`` and builds its handlers with
/// ``logEmitter``'s `logHandler(label:logLevel:metadataProvider:)` (swift-log's bootstrap can be called once
/// per process).
///
/// A signal with neither an output path nor a collector (the `otlp` section, with an `exporterFactory`) is
/// not exported: its items are counted as dropped (`disabled`).
public final class OTLPTelemetry: Sendable {
    /// The configuration in effect: the one given, with numeric values clamped into their documented ranges
    /// (each value clamped is reported to the diagnostics hook at start).
    package let configuration: OTLPTelemetryConfiguration
    /// The resource every record is written under: detected, or the one given.
    package let resource: OTLPResource
    /// What the pipeline received, exported and dropped so far: the file outputs (and the disabled signals).
    public let counters: OTLPTelemetryCounters
    /// What was handed to the collector of the configuration's `otlp` section, delivered (exported), and
    /// dropped (`rejected`, `export_failed`, ...), with retries; all zero without one.
    public let deliveryCounters: OTLPTelemetryCounters
    /// The tracer ``bootstrap(logLevel:)`` and ``bootstrapTracing()`` install for swift-distributed-tracing; usable directly too.
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
    /// The exporters (spools) that can tell whether a write the span journal was told of got there.
    private let destinationCheckers: [any OTLPExportDestinationChecking]
    /// The traces file output and a traces spool, counted: the span journal waits for each to take a span.
    private let durableSpanDestinations: Int
    private let spanStage: any OTLPExportStage<OTLPScopedSpan>
    private let logStage: any OTLPExportStage<OTLPScopedLogRecord>
    private let clock: any OTLPClock
    private let idGenerator: any OTLPIDGenerator
    private let spanProcessors: [any OTLPSpanProcessor]
    private let logRecordProcessors: [any OTLPLogRecordProcessor]
    private let diagnostics: @Sendable (String) -> Void
    /// The open-span journal, opened by ``openSpanJournal(directory:)``; journaling tracers write to it.
    package let spanJournal: OTLPSpanJournal
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
        var destinationCheckers: [any OTLPExportDestinationChecking] = []
        // The traces file output and a traces spool: the destinations the span journal waits for, each.
        var durableSpanDestinations = 0
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
                    diagnostics("OTLPWire telemetry: \(error); \(signal.noun(2)) are dropped (write_failed) until it opens")
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
                if Item.signal == .traces, fileSink is any OTLPItemCountingSink { durableSpanDestinations += 1 }
                stages.append(
                    OTLPBatchStage(
                        exporter: OTLPStreamExporter<Item>(
                            sink: fileSink, framing: output.framing, gzip: output.gzip, zstd: output.zstd,
                            gzipLevel: output.gzipLevel, durability: configuration.durability,
                            resource: resource,
                            counters: counters, diagnostics: diagnostics),
                        counters: counters, configuration: batch, diagnostics: diagnostics))
            }
            if let exporterFactory, let deliveryCounters, var endpoint = configuration.otlp?.resolved(for: Item.signal) {
                // The spool's durability is the pipeline's unless the spool sets its own.
                if endpoint.spool != nil, endpoint.spool?.durability == nil { endpoint.spool?.durability = configuration.durability }
                let exporter = exporterFactory.makeExporter(
                    for: Item.self, endpoint: endpoint, resource: resource, counters: deliveryCounters, diagnostics: diagnostics)
                // A spool can tell, at the next start, whether a write the journal was told of got there.
                if let checker = exporter as? any OTLPExportDestinationChecking {
                    destinationCheckers.append(checker)
                    if Item.signal == .traces { durableSpanDestinations += 1 }
                }
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
        let spanJournal = OTLPSpanJournal(resource: resource, durability: configuration.durability, clock: clock, diagnostics: diagnostics)
        self.spanJournal = spanJournal
        tracer = OTLPTracer(
            stage: spanStage, scope: scope, idGenerator: idGenerator, clock: clock,
            sampler: configuration.sampling.sampler, limits: configuration.limits, spanProcessors: spanProcessors, journal: spanJournal)
        logEmitter = OTLPLogEmitter(
            stage: logStage, scope: scope, clock: clock, limits: configuration.limits, logRecordProcessors: logRecordProcessors)
        self.openErrors = openErrors
        self.fileSinks = fileSinks
        self.destinationCheckers = destinationCheckers
        self.durableSpanDestinations = durableSpanDestinations
    }

    /// A tracer for another instrumentation scope, sharing this pipeline (exporters, sampler, limits,
    /// processors).
    public func tracer(scope: OTLPInstrumentationScope) -> OTLPTracer {
        OTLPTracer(
            stage: spanStage, scope: scope, idGenerator: idGenerator, clock: clock,
            sampler: configuration.sampling.sampler, limits: configuration.limits, spanProcessors: spanProcessors, journal: spanJournal)
    }

    /// Opens the open-span journal in the app's state directory `directory` (where the sessions file lives),
    /// and exports, before anything else, what the previous process there started and never exported: spans
    /// that ended as they ended, unended ones ended at its last heartbeat with status `ERROR` ("the process
    /// ended before the span ended") and their instrumentation's `launch.interrupted` or `view.interrupted`
    /// set to `true`, each under its own resource. From then on the spans of the launch and view
    /// instrumentations, and of tracers that opt in (``OTLPTracer/journaled()``), are journaled until
    /// exported. Call it once, right after making the pipeline and before making spans. See "When the app
    /// crashes" in the OTLPInstrumentation documentation.
    ///
    /// Does nothing when spans have no output.
    ///
    /// - Parameter directory: the app's state directory, created if missing; the journal is the file
    ///   `open-spans.u32be.bin` there.
    /// - Returns: what was recovered, and what of the previous journal could not be used.
    /// - Throws: when the directory or the journal cannot be made, or another process holds the journal
    ///   (`EWOULDBLOCK`, naming it); spans are then not journaled.
    @discardableResult
    public func openSpanJournal(directory: String) throws(OTLPWriteError) -> OTLPSpanJournalRecovery {
        guard !(spanStage is OTLPDisabledStage<OTLPScopedSpan>) else { return .empty }
        // Spans the previous process may have exported just before it died are looked for in the file output.
        let output = configuration.traces.path.flatMap { ["-", "stdout", "stderr"].contains($0) ? nil : $0 }
        let (recovery, spans) = try spanJournal.open(
            directory: directory, outputPath: output, destinationCheckers: destinationCheckers, durableDestinations: durableSpanDestinations
        )
        guard !spans.isEmpty else { return recovery }
        for span in spans { spanStage.onEnd(span) }
        // Exported now, not with the first batch or at shutdown: a process that crashes again soon after its
        // start (a crash loop) would otherwise keep them in the journal until it fills, and its newest
        // launches would not be journaled (regression). A file output or a spool takes them at once; a
        // collector may take a timeout, so the start does not wait for it.
        if output != nil || configuration.otlp?.spool != nil {
            spanStage.forceFlush()
        } else {
            let stage = spanStage
            Thread { stage.forceFlush() }.start()
        }
        return recovery
    }

    /// A log emitter for another instrumentation scope, sharing this pipeline.
    public func logEmitter(scope: OTLPInstrumentationScope) -> OTLPLogEmitter {
        OTLPLogEmitter(
            stage: logStage, scope: scope, clock: clock, limits: configuration.limits, logRecordProcessors: logRecordProcessors)
    }

    /// ``logEmitter``'s swift-log handler (``OTLPLogEmitter/logHandler(label:logLevel:metadataProvider:)``), as
    /// ``bootstrap(logLevel:)`` installs it.
    package func logHandler(
        label: String, logLevel: Logger.Level = .info, metadataProvider: Logger.MetadataProvider? = nil
    ) -> any LogHandler {
        OTLPLogHandler(label: label, emitter: logEmitter, logLevel: logLevel, metadataProvider: metadataProvider, clock: clock)
    }

    /// Makes this pipeline the process's tracer (swift-distributed-tracing) and log handler (swift-log): each
    /// log call becomes a log record and, unless the configuration's `consoleLogging` is off, also a line on
    /// standard error (swift-log's `StreamLogHandler`), both at `logLevel` and above; the metadata provider
    /// `Logger.MetadataProvider.otlpTraceContext` adds the active span's `trace_id` and `span_id` to
    /// both. Each system can be bootstrapped once per process: when the program bootstraps swift-log itself,
    /// call ``bootstrapTracing()`` instead.
    public func bootstrap(logLevel: Logger.Level = .info) {
        InstrumentationSystem.bootstrap(tracer)
        var console = configuration.consoleLogging
        if console, configuration.traces.path == "stderr" || configuration.logs.path == "stderr" {
            console = false
            diagnostics(
                "OTLPWire telemetry: no console logging: an output writes OTLP to stderr, which the console lines would be mixed into")
        }
        LoggingSystem.bootstrap(
            { [self, console] label, metadataProvider in
                let handler = logHandler(label: label, logLevel: logLevel, metadataProvider: metadataProvider)
                guard console else { return handler }
                var standardError = StreamLogHandler.standardError(label: label, metadataProvider: metadataProvider)
                standardError.logLevel = logLevel
                return MultiplexLogHandler([handler, standardError])
            }, metadataProvider: .otlpTraceContext)
    }

    /// Makes this pipeline the process's tracer (swift-distributed-tracing) and leaves swift-log alone: for a
    /// program that bootstraps swift-log itself (swift-log traps on a second bootstrap), with
    /// `logEmitter.logHandler(label:logLevel:metadataProvider:)` among its handlers, beside the program's own,
    /// and `Logger.MetadataProvider.otlpTraceContext` as its metadata provider.
    ///
    /// ```swift
    /// // Compiled copy: Tests/DocumentationExamples/OTLPTelemetry/OTLPTelemetryDocComments.swift
    /// func bootstrapBesideStandardOutput(telemetry: OTLPTelemetry) {
    ///     telemetry.bootstrapTracing()
    ///     LoggingSystem.bootstrap(
    ///         { label, provider in
    ///             MultiplexLogHandler([
    ///                 telemetry.logEmitter.logHandler(label: label, metadataProvider: provider),
    ///                 StreamLogHandler.standardOutput(label: label, metadataProvider: provider),
    ///             ])
    ///         }, metadataProvider: .otlpTraceContext)
    /// }
    /// ```
    public func bootstrapTracing() {
        InstrumentationSystem.bootstrap(tracer)
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
    ///
    /// Returns within the configuration's `shutdownTimeoutSeconds` (5 s by default) whatever the collector
    /// does (down, or never answering), the application's own processors' `shutdown()` excepted: what is not
    /// delivered by then stays in the spool when `otlp` has one, and is counted as dropped otherwise
    /// (`shutdown_timeout`, or `export_failed` for a request that failed). A refused connection is not tried
    /// again during shutdown. Only the first call does this: a later one (a program that also hands the
    /// telemetry to a `ServiceGroup`, which shuts it down) returns at once.
    public func shutdown() {
        guard shutdownCalled.set() else { return }
        let deadline = ContinuousClock.now + .seconds(configuration.shutdownTimeoutSeconds)
        // The application's processors first, in chain order (what they emit then is still exported), each
        // once even when installed for both signals.
        var shutDown = Set<ObjectIdentifier>()
        func isFirstShutdown(_ processor: Any) -> Bool {
            !(type(of: processor) is AnyClass) || shutDown.insert(ObjectIdentifier(processor as AnyObject)).inserted
        }
        for processor in spanProcessors where isFirstShutdown(processor) { processor.shutdown() }
        for processor in logRecordProcessors where isFirstShutdown(processor) { processor.shutdown() }
        // Both signals at once, each by the deadline.
        let spanStage = spanStage
        let logStage = logStage
        _ = OTLPConcurrentCalls.run([
            { @Sendable in spanStage.shutdown(before: deadline) }, { @Sendable in logStage.shutdown(before: deadline) },
        ])
        spanJournal.close()
        for sink in fileSinks where !sink.close(before: deadline) {
            diagnostics(
                "OTLPWire telemetry: \(OTLPDiagnostics.printable(sink.path, maxCharacters: 256)) is left open: a write to it did not end by the shutdown deadline"
            )
        }
        // A signal switched off (no output) is not data lost: it is left out of the report.
        var snapshot = counters.snapshot
        snapshot.spansDropped[.disabled] = nil
        snapshot.logRecordsDropped[.disabled] = nil
        let delivery = deliveryCounters.snapshot
        let advice = queueAdvice(snapshot, delivery) + shutdownAdvice(snapshot, delivery)
        if snapshot.totalSpansDropped > 0 || snapshot.totalLogRecordsDropped > 0 || snapshot.writeErrors > 0 {
            diagnostics("OTLPWire telemetry dropped data: \(snapshot)\(advice)")
        }
        if delivery.totalSpansDropped > 0 || delivery.totalLogRecordsDropped > 0 {
            diagnostics("OTLPWire telemetry dropped data meant for the collector: \(delivery)\(advice)")
        }
    }

    /// What to do when items were dropped at shutdown's deadline: the setting to raise, or a spool.
    private func shutdownAdvice(_ snapshots: OTLPTelemetryCounters.Snapshot...) -> String {
        let dropped = snapshots.reduce(0) {
            $0 + $1.spansDropped[.shutdownTimeout, default: 0] + $1.logRecordsDropped[.shutdownTimeout, default: 0]
        }
        guard dropped > 0 else { return "" }
        let spool =
            configuration.otlp != nil && configuration.otlp?.spool == nil
            ? ", or give otlp a spool (otlp.spool), which keeps them for the next run" : ""
        return
            ". Dropped at the shutdown deadline (\(OTLPDropReason.shutdownTimeout)): raise shutdownTimeoutSeconds from \(Self.seconds(configuration.shutdownTimeoutSeconds))\(spool)"
    }

    /// Seconds as written in a configuration: `5`, `0.5`.
    private static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
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

    /// Sets the flag; returns whether this call set it (it was not set before).
    func set() -> Bool {
        lock.withLock {
            defer { value = true }
            return !value
        }
    }
}
