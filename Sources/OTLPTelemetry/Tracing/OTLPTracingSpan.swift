import Foundation
package import OTLPWire
public import Tracing

/// A span of ``OTLPTracer``. Thread-safe; ending it a second time does nothing. A span the sampler dropped
/// records nothing (``isRecording`` is `false`) but still carries its context to children.
public final class OTLPTracingSpan: Tracing.Span, @unchecked Sendable {
    /// The context the span was started in and, once ``context`` has been read, the span's own context.
    @exclusivity(unchecked) private var _context: InstrumentationContext
    @exclusivity(unchecked) private var contextHoldsSpan = false
    /// The span's identity, also available from ``context``.
    public let spanContext: OTLPSpanContext
    private let parent: OTLPSpanContext?
    private let kind: SpanKind
    private let scope: OTLPInstrumentationScope
    /// `nil` for a span the sampler dropped.
    private let stage: (any OTLPExportStage<OTLPScopedSpan>)?
    /// The tracer's limits, clamped into their ranges.
    private let limits: OTLPLimits
    private let clock: any OTLPClock
    private let startTimeUnixNano: UInt64
    /// Guards the span's mutable state. Those properties are `@exclusivity(unchecked)`: every access holds
    /// this lock, which keeps accesses from overlapping (a nested access on the same thread would wait for the
    /// lock it holds), and the runtime's check of each access cost about 1,900 instructions per span with 8
    /// attributes (two checked accesses per attribute set).
    private let lock = NSLock()
    @exclusivity(unchecked) private var _operationName: String
    @exclusivity(unchecked) private var _attributes = OTLPTracingSpan.reservedAttributes
    /// The attributes as they were before a change at the limit, or the copy a change after the end is made to:
    /// empty except while ``attributes`` yields (under the lock).
    @exclusivity(unchecked) private var attributesAside = SpanAttributes()
    @exclusivity(unchecked) private var events: [OTLPSpanEvent] = []
    @exclusivity(unchecked) private var links: [OTLPSpanLink] = []
    /// Events and links refused because the span already held as many as its limits allow: a long-lived
    /// span in a loop cannot grow without bound. Counted in `dropped_events_count` / `dropped_links_count`.
    @exclusivity(unchecked) private var droppedEvents = 0
    @exclusivity(unchecked) private var droppedLinks = 0
    /// Attributes refused because the span already held as many as its limits allow: the first ones set
    /// are kept, as the specification asks (at the end of the span, an unordered dictionary could only keep
    /// the alphabetically first).
    @exclusivity(unchecked) private var droppedAttributes = 0
    @exclusivity(unchecked) private var status: OTLPSpanStatus?
    @exclusivity(unchecked) private var ended = false
    /// Set when the span is journaled (its tracer journals, and the journal took its start).
    @exclusivity(unchecked) private var journal: OTLPSpanJournalBinding?

    /// Empty attributes with room for 8, shared: a span's first attribute copies the storage with its
    /// capacity, so its attributes grow in one allocation instead of four (capacities 1, 3, 6, 12) and are
    /// not rehashed on the way; a span without attributes allocates none.
    private static let reservedAttributes: SpanAttributes = {
        var attributes: [String: SpanAttribute] = [:]
        attributes.reserveCapacity(8)
        return SpanAttributes(attributes)
    }()

    init(
        operationName: String, kind: SpanKind, parentContext: InstrumentationContext, spanContext: OTLPSpanContext,
        parent: OTLPSpanContext?, startTimeUnixNano: UInt64, scope: OTLPInstrumentationScope,
        stage: (any OTLPExportStage<OTLPScopedSpan>)?, limits: OTLPLimits, clock: any OTLPClock
    ) {
        _operationName = operationName
        self.kind = kind
        _context = parentContext
        self.spanContext = spanContext
        self.parent = parent
        self.startTimeUnixNano = startTimeUnixNano
        self.scope = scope
        self.stage = stage
        self.limits = limits
        self.clock = clock
        ended = stage == nil
    }

    /// The context the span was started in, with the span as its active span. Made when first read (by
    /// `withSpan`, or to start a child): a span that is only started and ended never pays for it.
    public var context: InstrumentationContext {
        lock.withLock {
            if !contextHoldsSpan {
                _context.otlpSpanContext = spanContext
                contextHoldsSpan = true
            }
            return _context
        }
    }

    public var operationName: String {
        get { lock.withLock { _operationName } }
        set { lock.withLock { if !ended { _operationName = newValue } } }
    }

    /// The span's attributes. A mutation (`span.attributes[key] = value`) holds the span's lock while it
    /// runs: code that mutates them must not read the span itself (its `context`, name or attributes)
    /// meanwhile.
    public var attributes: SpanAttributes {
        get { lock.withLock { _attributes } }
        set { lock.withLock { if !ended { _attributes = newValue } } }
        // `span.attributes[key] = value` mutates in place under the lock, instead of get + set copying the
        // whole dictionary on every write.
        _modify {
            lock.lock()
            defer { lock.unlock() }
            // Nothing local lives across a yield (the rare cases keep their copy in `attributesAside`): the
            // coroutine's frame then fits the caller's buffer, where locals made it allocate (and free) a frame
            // on the heap for every attribute set.
            if ended {
                // Changes after the end are made to a copy and discarded.
                attributesAside = _attributes
                yield &attributesAside
                attributesAside = SpanAttributes()
            } else if _attributes.count < limits.attributeCountLimit {
                yield &_attributes
            } else {
                // At the limit (rare): new keys are refused and counted; values of keys held may change.
                attributesAside = _attributes
                yield &_attributes
                if _attributes.count > limits.attributeCountLimit { refuseNewAttributes(keeping: attributesAside) }
                attributesAside = SpanAttributes()
            }
        }
    }

    public var isRecording: Bool { lock.withLock { !ended } }

    public func setStatus(_ status: SpanStatus) {
        lock.withLock {
            guard !ended else { return }
            switch status.code {
            case .ok: self.status = OTLPSpanStatus(code: .ok)
            case .error: self.status = OTLPSpanStatus(code: .error, message: status.message ?? "")
            }
        }
    }

    public func addEvent(_ event: SpanEvent) {
        let converted = OTLPSpanEvent(
            name: event.name, timeUnixNano: event.nanosecondsSinceEpoch, attributes: event.attributes.otlpAttributes)
        lock.withLock { append(converted) }
    }

    /// Records an `exception` event with the semantic-convention attributes `exception.type` and
    /// `exception.message`.
    public func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant)
    {
        var all = [
            OTLPAttribute("exception.type", .string(String(reflecting: type(of: error)))),
            OTLPAttribute("exception.message", .string(String(describing: error))),
        ]
        all += attributes.otlpAttributes
        let event = OTLPSpanEvent(name: "exception", timeUnixNano: instant().nanosecondsSinceEpoch, attributes: all)
        lock.withLock { append(event) }
    }

    public func addLink(_ link: SpanLink) {
        guard let linked = link.context.otlpSpanContext else { return }
        let converted = OTLPSpanLink(
            traceID: linked.traceID, spanID: linked.spanID, traceState: linked.traceState,
            attributes: link.attributes.otlpAttributes, flags: Self.flags(linked.traceFlags, remote: linked.isRemote))
        lock.withLock {
            guard !ended else { return }
            if links.count < limits.linkCountLimit { links.append(converted) } else { droppedLinks += 1 }
        }
    }

    /// Removes (and counts) keys that are not among `held` until the span is within its limit again.
    private func refuseNewAttributes(keeping held: SpanAttributes) {
        var added: [String] = []
        _attributes.forEach { key, _ in if held.get(key) == nil { added.append(key) } }
        // Which of several keys added at once came first is not known: the last in key order go first.
        for key in added.sorted().reversed() where _attributes.count > limits.attributeCountLimit {
            _attributes[key] = nil
            droppedAttributes += 1
        }
    }

    /// Adds an event under the lock, or counts it when the span is full.
    private func append(_ event: OTLPSpanEvent) {
        guard !ended else { return }
        if events.count < limits.eventCountLimit { events.append(event) } else { droppedEvents += 1 }
    }

    public func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        let endTime = instant().nanosecondsSinceEpoch
        // The attributes are handed on as they are: converting them and applying the limits is done once,
        // on the pipeline's worker thread (OTLPScopedSpan.prepareForExport), not on the application's.
        // Locked and unlocked by hand: an optional tuple out of `withLock` copied the item twice more.
        lock.lock()
        guard !ended else {
            lock.unlock()
            return
        }
        ended = true
        let item = scoped(endTimeUnixNano: max(endTime, startTimeUnixNano))
        let journal = self.journal
        lock.unlock()
        guard let stage else { return }
        guard let journal else {
            stage.onEnd(item)
            return
        }
        // A journaled span: its attributes are journaled as they are converted for export, and converted on
        // the pipeline's worker as any span's (the journal converts them here, for both, only when the
        // conversion would change them).
        var journaled = item
        journaled.journalTag = journal.journal.tag
        journal.journal.ended(&journaled, interruptedAttribute: journal.interruptedAttribute)
        stage.onEnd(journaled)
    }

    /// The span as it is now, ending at `endTimeUnixNano` (0: not ended). Under ``lock``.
    private func scoped(endTimeUnixNano: UInt64) -> OTLPScopedSpan {
        let span = OTLPSpan(
            traceID: spanContext.traceID, spanID: spanContext.spanID, parentSpanID: parent?.spanID,
            name: _operationName, kind: Self.kind(kind), startTimeUnixNano: startTimeUnixNano,
            endTimeUnixNano: endTimeUnixNano, attributes: [], events: events,
            links: links, status: status, traceState: spanContext.traceState,
            flags: Self.flags(spanContext.traceFlags, remote: parent?.isRemote ?? false),
            droppedAttributesCount: UInt32(clamping: droppedAttributes), droppedEventsCount: UInt32(clamping: droppedEvents),
            droppedLinksCount: UInt32(clamping: droppedLinks))
        return OTLPScopedSpan(
            scope: scope, span: span, pendingAttributes: OTLPPendingSpanAttributes(attributes: _attributes, limits: limits))
    }

    /// Journals the span's start (after the processors saw it, so with their attributes): from now on it is
    /// journaled, unless the journal refused it (closed, full).
    func startJournaling(_ binding: OTLPSpanJournalBinding) {
        let started = lock.withLock { ended ? nil : scoped(endTimeUnixNano: 0) }
        guard let started, binding.journal.started(started, interruptedAttribute: binding.interruptedAttribute) else { return }
        lock.withLock { journal = binding }
    }

    /// Journals the span again as it is now, unended: for attributes set after it started (a view's name), so
    /// that a span recovered after a crash carries them. Does nothing for a span that is not journaled or ended.
    package func journalCheckpoint() {
        let current: (OTLPScopedSpan, OTLPSpanJournalBinding)? = lock.withLock {
            guard !ended, let journal else { return nil }
            return (scoped(endTimeUnixNano: 0), journal)
        }
        guard let (span, binding) = current else { return }
        binding.journal.checkpoint(span, interruptedAttribute: binding.interruptedAttribute)
    }

    /// W3C flags in the low byte; bit 8 says whether the parent's remoteness is known, bit 9 that it is remote.
    static func flags(_ traceFlags: UInt8, remote: Bool) -> UInt32 {
        UInt32(traceFlags) | 0x100 | (remote ? 0x200 : 0)
    }

    static func kind(_ kind: SpanKind) -> OTLPSpanKind {
        switch kind {
        case .server: .server
        case .client: .client
        case .producer: .producer
        case .consumer: .consumer
        case .internal: .internal
        }
    }
}

extension SpanAttributes {
    /// The attributes as OTLP key/values, sorted by key (the storage is unordered; output stays
    /// deterministic). Arrays become array values, string-convertibles their description.
    ///
    /// Up to ``OTLPAttributeKeyOrder/maxWordSortedCount`` attributes are sorted as they are converted: each is
    /// inserted in key order into a buffer on the stack (by its ordering word, worked out once), then moved
    /// into the array. The array is made with `reserveCapacity`, which is specialized here: making it with
    /// `init(unsafeUninitializedCapacity:)` went through the standard library's generic code, which looked
    /// the array's storage type up at run time (about 650 instructions per span, more than the sort).
    package var otlpAttributes: [OTLPAttribute] {
        var holdsApplicationValues = false
        return otlpAttributes(holdsApplicationValues: &holdsApplicationValues)
    }

    /// ``otlpAttributes``, also telling whether any value is of the application's own type (`stringConvertible`,
    /// or a case this conversion does not know): freeing those runs the application's code.
    func otlpAttributes(holdsApplicationValues: inout Bool) -> [OTLPAttribute] {
        guard !isEmpty else { return [] }
        let count = count
        var out: [OTLPAttribute] = []
        out.reserveCapacity(count)
        guard count <= OTLPAttributeKeyOrder.maxWordSortedCount else {
            forEach { key, value in
                if value.isApplicationValue { holdsApplicationValues = true }
                out.append(OTLPAttribute(key, value.otlpValue))
            }
            OTLPAttributeKeyOrder.sort(&out)
            return out
        }
        withUnsafeTemporaryAllocation(of: OTLPAttribute.self, capacity: count) { held in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: count) { words in
                let attributes = held.baseAddress!
                let attributeWords = words.baseAddress!
                var initialized = 0
                forEach { key, value in
                    guard initialized < count else { return }
                    if value.isApplicationValue { holdsApplicationValues = true }
                    let word = OTLPAttributeKeyOrder.orderingWord(of: key)
                    // An insertion sort: the attributes after the new one move up by one, each moved (not copied:
                    // no retain or release), and the keys compared with `<` only when their words tie.
                    var position = initialized
                    while position > 0 {
                        let previous = attributeWords[position &- 1]
                        let before = OTLPAttributeKeyOrder.wordOrder(word, previous) ?? (key < attributes[position &- 1].key)
                        guard before else { break }
                        (attributes + position).initialize(to: (attributes + (position &- 1)).move())
                        attributeWords[position] = previous
                        position &-= 1
                    }
                    (attributes + position).initialize(to: OTLPAttribute(key, value.otlpValue))
                    attributeWords[position] = word
                    initialized &+= 1
                }
                for index in 0..<initialized { out.append((attributes + index).move()) }
            }
        }
        return out
    }
}

extension SpanAttribute {
    /// Whether the value is of the application's own type (or of a case added to the Tracing API since), whose
    /// deinitialization runs the application's code.
    var isApplicationValue: Bool {
        switch self {
        case .int32, .int64, .double, .bool, .string, .int32Array, .int64Array, .doubleArray, .boolArray, .stringArray: false
        default: true
        }
    }

    var otlpValue: OTLPAttributeValue {
        switch self {
        case .int32(let value): .int(Int64(value))
        case .int64(let value): .int(value)
        case .double(let value): .double(value)
        case .bool(let value): .bool(value)
        case .string(let value): .string(value)
        case .int32Array(let values): .array(values.map { .int(Int64($0)) })
        case .int64Array(let values): .array(values.map { .int($0) })
        case .doubleArray(let values): .array(values.map { .double($0) })
        case .boolArray(let values): .array(values.map { .bool($0) })
        case .stringArray(let values): .array(values.map { .string($0) })
        case .stringConvertible(let value): .string(String(describing: value))
        case .stringConvertibleArray(let values): .array(values.map { .string(String(describing: $0)) })
        default: .empty
        }
    }
}
