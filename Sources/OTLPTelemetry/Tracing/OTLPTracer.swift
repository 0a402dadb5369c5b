public import OTLPWire
public import Tracing

/// A swift-distributed-tracing `Tracer` whose spans become OTLP spans.
///
/// `withSpan`, `startSpan`, task-local context propagation, attributes, events, links, status and explicit
/// start and end instants all work as the Tracing API describes. A span's parent is the span in the given
/// context (same trace ID, parent span ID set); without one a new trace starts. W3C `traceparent` and
/// `tracestate` are injected and extracted.
///
/// ``OTLPTelemetry`` makes tracers from its configuration (``OTLPTelemetry/tracer``); a tracer can also be
/// put together by hand over an exporter:
///
/// ```swift
/// // Compiled copy: Tests/DocumentationExamples/OTLPTelemetry/OTLPTelemetryDocComments.swift
/// func traceWithATracerOfYourOwn(resource: OTLPResource) {
///     let counters = OTLPTelemetryCounters()
///     let exporter = OTLPStreamExporter<OTLPScopedSpan>(path: "traces.u32be.bin", resource: resource, counters: counters)
///     let tracer = OTLPTracer(exporter: exporter, counters: counters, scope: OTLPInstrumentationScope(name: "checkout"))
///     InstrumentationSystem.bootstrap(tracer)
///     withSpan("GET /cart") { span in span.attributes["cart.items"] = 3 }
///     tracer.shutdown()  // exports what is queued
/// }
/// ```
public struct OTLPTracer: Tracer {
    public typealias Span = OTLPTracingSpan

    /// The instrumentation scope of every span made by this tracer.
    package let scope: OTLPInstrumentationScope
    /// Where ended spans go: the pipeline's export stage (behind the application's processors, if any).
    let stage: any OTLPExportStage<OTLPScopedSpan>
    let idGenerator: any OTLPIDGenerator
    let clock: any OTLPClock
    let sampler: any OTLPSampler
    let limits: OTLPLimits
    /// The application's processors: told of every sampled span's start (and, through ``stage``, its end).
    let spanProcessors: [any OTLPSpanProcessor]
    /// The open-span journal of the pipeline the tracer belongs to (``OTLPTelemetry``), if any.
    let pipelineJournal: OTLPSpanJournal?
    /// Set when this tracer journals its spans (``journaled()``).
    let journalBinding: OTLPSpanJournalBinding?

    /// A tracer whose ended spans go to `exporter`: in batches from a worker thread of the tracer's own
    /// (`batch`, the specification's batching; the default), or one at a time on the thread that ends each
    /// span (`batch: nil`, for tests and tools that make few spans). Call ``shutdown()`` at the end: it
    /// exports what is still queued and shuts the exporter down.
    ///
    /// - Parameters:
    ///   - exporter: where spans go (``OTLPStreamExporter``, the OTLPHTTP library's exporters, or one of
    ///     your own).
    ///   - batch: the batching settings (values out of range are clamped), or `nil` to export each span as it
    ///     ends.
    ///   - counters: where spans received and dropped before the exporter are counted: the exporter's own,
    ///     so that one ``OTLPTelemetryCounters`` accounts for every span.
    ///   - scope: the instrumentation scope of every span made by this tracer.
    ///   - idGenerator: the source of trace and span IDs (default: random).
    ///   - clock: the time of span starts, ends and events not given explicitly (default: the system's
    ///     real-time clock).
    ///   - sampler: default `ParentBased(root: AlwaysOn)`, the specification's default.
    ///   - limits: default: the specification's (128 attributes, events and links).
    ///   - spanProcessors: the application's processors, run in order before the exporter (see
    ///     ``OTLPSpanProcessor``); none by default, which costs nothing.
    public init<Exporter: OTLPExporter<OTLPScopedSpan>>(
        exporter: Exporter, batch: OTLPBatchConfiguration? = .default, counters: OTLPTelemetryCounters,
        scope: OTLPInstrumentationScope, idGenerator: any OTLPIDGenerator = OTLPRandomIDGenerator(),
        clock: any OTLPClock = OTLPSystemClock(), sampler: any OTLPSampler = OTLPTelemetryConfiguration.Sampling.default.sampler,
        limits: OTLPLimits = .default, spanProcessors: [any OTLPSpanProcessor] = []
    ) {
        let stage: any OTLPExportStage<OTLPScopedSpan> =
            if let batch {
                OTLPBatchStage(exporter: exporter, counters: counters, configuration: batch)
            } else {
                OTLPSimpleStage(exporter: exporter, counters: counters)
            }
        self.init(
            stage: stage, scope: scope, idGenerator: idGenerator, clock: clock, sampler: sampler, limits: limits,
            spanProcessors: spanProcessors)
    }

    /// A tracer handing ended spans to `stage`, a pipeline's export stage (which ``OTLPTelemetry`` and
    /// ``init(exporter:batch:counters:scope:idGenerator:clock:sampler:limits:spanProcessors:)`` assemble).
    ///
    /// - Parameters:
    ///   - stage: where ended spans go.
    ///   - scope: the instrumentation scope of every span made by this tracer.
    ///   - idGenerator: the source of trace and span IDs (default: random).
    ///   - clock: the time of span starts, ends and events not given explicitly.
    ///   - sampler: default `ParentBased(root: AlwaysOn)`.
    ///   - limits: default: the specification's.
    ///   - spanProcessors: the application's processors, run in order before `stage`.
    package init(
        stage: any OTLPExportStage<OTLPScopedSpan>, scope: OTLPInstrumentationScope,
        idGenerator: any OTLPIDGenerator = OTLPRandomIDGenerator(), clock: any OTLPClock = OTLPSystemClock(),
        sampler: any OTLPSampler = OTLPParentBasedSampler(), limits: OTLPLimits = .default, spanProcessors: [any OTLPSpanProcessor] = [],
        journal: OTLPSpanJournal? = nil, journalBinding: OTLPSpanJournalBinding? = nil
    ) {
        pipelineJournal = journal
        self.journalBinding = journalBinding
        self.stage = spanProcessors.isEmpty ? stage : OTLPSpanProcessorChain(spanProcessors: spanProcessors, next: stage)
        self.spanProcessors = spanProcessors
        self.scope = scope
        self.idGenerator = idGenerator
        self.clock = clock
        self.sampler = sampler
        self.limits = limits.clamped
    }

    public func startSpan<Instant: TracerInstant>(
        _ operationName: String,
        context: @autoclosure () -> InstrumentationContext,
        ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant,
        function: String,
        file fileID: String,
        line: UInt
    ) -> OTLPTracingSpan {
        let context = context()
        let parent = context.otlpSpanContext
        let traceID = parent?.traceID ?? idGenerator.newTraceID()
        let sampled = sampler.shouldSample(traceID: traceID, parent: parent, name: operationName)
        let spanContext = OTLPSpanContext(
            traceID: traceID, spanID: idGenerator.newSpanID(),
            traceFlags: sampled ? (parent?.traceFlags ?? 0) | 1 : (parent?.traceFlags ?? 0) & ~1, traceState: parent?.traceState ?? "")
        // The span's own context (the parent's with this span active) is made when first read.
        let span = OTLPTracingSpan(
            operationName: operationName, kind: kind, parentContext: context, spanContext: spanContext, parent: parent,
            startTimeUnixNano: instant().nanosecondsSinceEpoch, scope: scope, stage: sampled ? stage : nil,
            limits: limits, clock: clock)
        if sampled {
            for spanProcessor in spanProcessors { spanProcessor.onStart(span, parentContext: context) }
            if let journalBinding { span.startJournaling(journalBinding) }
        }
        return span
    }

    /// This tracer, journaling its spans in the pipeline's open-span journal: a span is written there when it
    /// starts and when it ends, until the exporter has taken it, so that after a crash the next start of the
    /// app exports it (see ``OTLPTelemetry/openSpanJournal(directory:)``). Costs two records per span (written
    /// field by field into the journal's memory-mapped file, no system call), on the threads that start and
    /// end it (the tracing benchmark measures it beside the same spans unjournaled); the spans of tracers that do not journal cost nothing more. A tracer not
    /// made by an ``OTLPTelemetry``, or one whose journal is not open, journals nothing.
    public func journaled() -> OTLPTracer {
        journaling(interruptedAttribute: nil)
    }

    /// This tracer, journaling its spans; `interruptedAttribute` is set to `true` on a span recovered unended.
    package func journaling(interruptedAttribute: String?) -> OTLPTracer {
        guard let pipelineJournal else { return self }
        return OTLPTracer(
            stage: stage, scope: scope, idGenerator: idGenerator, clock: clock, sampler: sampler, limits: limits,
            spanProcessors: spanProcessors, chained: true, journal: pipelineJournal,
            journalBinding: OTLPSpanJournalBinding(journal: pipelineJournal, interruptedAttribute: interruptedAttribute))
    }

    /// A copy of a tracer whose `stage` already runs the processors.
    private init(
        stage: any OTLPExportStage<OTLPScopedSpan>, scope: OTLPInstrumentationScope, idGenerator: any OTLPIDGenerator,
        clock: any OTLPClock, sampler: any OTLPSampler, limits: OTLPLimits, spanProcessors: [any OTLPSpanProcessor], chained: Bool,
        journal: OTLPSpanJournal?, journalBinding: OTLPSpanJournalBinding?
    ) {
        self.stage = stage
        self.spanProcessors = spanProcessors
        self.scope = scope
        self.idGenerator = idGenerator
        self.clock = clock
        self.sampler = sampler
        self.limits = limits
        pipelineJournal = journal
        self.journalBinding = journalBinding
    }

    /// Exports every span ended so far.
    public func forceFlush() {
        stage.forceFlush()
    }

    /// Exports every span ended so far, then stops: the exporter is shut down and later spans are dropped
    /// (counted, `shut_down`). For a tracer made with
    /// ``init(exporter:batch:counters:scope:idGenerator:clock:sampler:limits:spanProcessors:)``; the
    /// tracers of an ``OTLPTelemetry`` stop with its ``OTLPTelemetry/shutdown()``, which also stops the
    /// application's processors.
    public func shutdown() {
        stage.shutdown()
    }

    /// Exports a span made elsewhere (a converter's output, a replay) as one of this tracer's, under its
    /// scope and limits; sampling is not applied (the span was decided on when it was made). The
    /// application's processors see it through ``OTLPSpanProcessor/onAdopt(_:)``, then
    /// ``OTLPSpanProcessor/onEnd(_:)``.
    public func export(_ span: OTLPSpan) {
        var scoped = OTLPScopedSpan(scope: scope, span: span)
        for spanProcessor in spanProcessors { spanProcessor.onAdopt(&scoped) }
        // The limits hold for what the processors added too.
        limits.apply(to: &scoped.span)
        stage.onEnd(scoped)
    }

    public func extract<Carrier, Extract>(_ carrier: Carrier, into context: inout InstrumentationContext, using extractor: Extract)
    where Extract: Extractor, Extract.Carrier == Carrier {
        guard let traceparent = extractor.extract(key: "traceparent", from: carrier) else { return }
        let traceState = extractor.extract(key: "tracestate", from: carrier) ?? ""
        if let remote = OTLPSpanContext(traceparent: traceparent, traceState: traceState) {
            context.otlpSpanContext = remote
        }
    }

    public func inject<Carrier, Inject>(_ context: InstrumentationContext, into carrier: inout Carrier, using injector: Inject)
    where Inject: Injector, Inject.Carrier == Carrier {
        guard let spanContext = context.otlpSpanContext else { return }
        injector.inject(spanContext.traceparent, forKey: "traceparent", into: &carrier)
        if !spanContext.traceState.isEmpty { injector.inject(spanContext.traceState, forKey: "tracestate", into: &carrier) }
    }
}
