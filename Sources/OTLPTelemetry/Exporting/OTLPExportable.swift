public import OTLPWire

/// A finished span with the instrumentation scope that produced it.
///
/// A span ended by ``OTLPTracingSpan`` carries its attributes as the Tracing API holds them: they are
/// converted to OTLP attributes, sorted by key and cut to the tracer's limits by ``prepareForExport()``,
/// which the pipeline's batching calls on its worker thread, not on the application's. Reading
/// ``span`` before that converts them for the read (every read again): an exporter of your own that reads
/// an item several times calls ``prepareForExport()`` on its copy first. A `.stringConvertible` attribute's
/// description is taken at that conversion, shortly after the span ended (as swift-otel takes it at
/// export); set a string to fix a value at a point in time. With two outputs (a file and a collector) the
/// conversion is done once, when the span ends, so that both get the same values.
public struct OTLPScopedSpan: Sendable {
    /// The instrumentation scope of the tracer that made the span.
    public var scope: OTLPInstrumentationScope
    /// The finished span, with its attributes converted and its limits applied.
    public var span: OTLPSpan {
        // A read borrows the stored span (no copy of its fields) once the attributes are converted.
        _read {
            if let pendingAttributes {
                var span = storedSpan
                pendingAttributes.complete(&span)
                yield span
            } else {
                yield storedSpan
            }
        }
        set {
            storedSpan = newValue
            pendingAttributes = nil
            limitsApplied = false
        }
        _modify {
            prepareForExport()
            limitsApplied = false
            yield &storedSpan
        }
    }
    fileprivate var storedSpan: OTLPSpan
    /// Attributes (and the limits to apply) still in the Tracing API's form; `nil` once converted.
    fileprivate var pendingAttributes: OTLPPendingSpanAttributes?
    /// Whether the stored span is as the tracer's limits left it (nothing changed since): its values then nest
    /// no deeper than ``OTLPLimits/maxValueNestingLevels``.
    fileprivate var limitsApplied = false

    /// A span produced under `scope`.
    public init(scope: OTLPInstrumentationScope, span: OTLPSpan) {
        self.scope = scope
        storedSpan = span
        pendingAttributes = nil
    }

    /// A span produced under `scope` whose attributes are converted and whose limits are applied later.
    init(scope: OTLPInstrumentationScope, span: OTLPSpan, pendingAttributes: OTLPPendingSpanAttributes) {
        self.scope = scope
        storedSpan = span
        self.pendingAttributes = pendingAttributes
    }

    /// Whether the span's attributes are still to be converted (for tests).
    var hasPendingAttributes: Bool { pendingAttributes != nil }

    /// Converts the span's pending attributes and applies its limits, once.
    public mutating func prepareForExport() {
        guard let pendingAttributes else { return }
        self.pendingAttributes = nil
        pendingAttributes.complete(&storedSpan)
        limitsApplied = true
    }
}

/// An emitted log record with the instrumentation scope that produced it.
public struct OTLPScopedLogRecord: Sendable {
    /// The instrumentation scope of the emitter that made the record.
    public var scope: OTLPInstrumentationScope
    /// The emitted log record.
    public var record: OTLPLogRecord

    /// A log record produced under `scope`.
    public init(scope: OTLPInstrumentationScope, record: OTLPLogRecord) {
        self.scope = scope
        self.record = record
    }
}

/// An item the pipeline carries: it knows what it counts as and how a batch becomes one request.
public protocol OTLPExportable: Sendable {
    /// The signal whose requests carry the item (what it counts as in ``OTLPTelemetryCounters``).
    static var signal: OTLPSignal { get }
    /// The items of the requests: `OTLPSpan` or `OTLPLogRecord`.
    associatedtype RequestItem: OTLPSignalItem
    /// One request holding `items` under `resource`, grouped by scope in order of first appearance.
    static func request(_ items: [Self], resource: OTLPResource) -> OTLPSignalData<RequestItem>
    /// Whether a value of this item (an attribute, of the item, its scope, events or links, or a log body)
    /// nests arrays and key-value lists more than `levels` deep. The exporter asks before encoding, which
    /// recurses per level: such an item is dropped (`item_too_large`) instead of exhausting its stack.
    func nestsValues(deeperThan levels: Int) -> Bool
    /// Completes work the producer left for later, so that it is done off the application's thread: a span
    /// ended by ``OTLPTracingSpan`` converts its attributes here. The pipeline calls it before an exporter
    /// sees the item, on any thread, possibly more than once: it must do its work once and nothing after.
    /// The default does nothing.
    mutating func prepareForExport()
}

extension OTLPExportable {
    public mutating func prepareForExport() {}
}

extension OTLPExportable {
    /// Nesting of arrays and key-value lists no reader accepts: at least twice this many message levels,
    /// past the readers' largest allowed depth. Exporters drop items nested deeper (`item_too_large`)
    /// before encoding, which recurses per level.
    package static var maxEncodableValueNesting: Int { OTLPDecodingOptions.maxNestingDepthRange.upperBound / 2 }

    /// `items` without those whose values nest deeper than ``maxEncodableValueNesting``: those are counted as
    /// dropped (`item_too_large`) in `counters` and reported to `diagnostics`, the line starting with `reporter`.
    package static func droppingTooDeeplyNested(
        _ items: [Self], counters: OTLPTelemetryCounters, reporter: String, diagnostics: (String) -> Void
    ) -> [Self] {
        // Nearly always none: the batch is then passed on as it is, not copied item by item.
        guard items.contains(where: { $0.nestsValues(deeperThan: maxEncodableValueNesting) }) else { return items }
        let encodable = items.filter { !$0.nestsValues(deeperThan: maxEncodableValueNesting) }
        let tooLarge = items.count - encodable.count
        if tooLarge > 0 {
            counters.dropped(tooLarge, signal, .itemTooLarge)
            diagnostics(
                "\(reporter): \(tooLarge) \(signal.noun(tooLarge)) dropped (\(OTLPDropReason.itemTooLarge)): values nested deeper than \(maxEncodableValueNesting) levels")
        }
        return encodable
    }
}

extension OTLPScopedSpan: OTLPExportable {
    public static var signal: OTLPSignal { .traces }

    public func nestsValues(deeperThan levels: Int) -> Bool {
        guard pendingAttributes == nil else {
            var prepared = self
            prepared.prepareForExport()
            return prepared.nestsValues(deeperThan: levels)
        }
        if scope.attributes.nest(deeperThan: levels) { return true }
        // The tracer's limits cut containers nested deeper than `maxValueNestingLevels` in the whole span.
        if limitsApplied && levels >= OTLPLimits.maxValueNestingLevels { return false }
        // The stored span itself: reading `span` would go through its accessor for every field.
        return storedSpan.attributes.nest(deeperThan: levels)
            || storedSpan.events.contains { $0.attributes.nest(deeperThan: levels) }
            || storedSpan.links.contains { $0.attributes.nest(deeperThan: levels) }
    }

    public static func request(_ items: [OTLPScopedSpan], resource: OTLPResource) -> OTLPTracesData {
        OTLPSignalData(resource: resource, grouping: items, scope: \.scope, item: \.span)
    }
}

extension OTLPScopedLogRecord: OTLPExportable {
    public static var signal: OTLPSignal { .logs }

    public func nestsValues(deeperThan levels: Int) -> Bool {
        scope.attributes.nest(deeperThan: levels) || record.attributes.nest(deeperThan: levels)
            || record.body?.nests(deeperThan: levels) == true
    }

    public static func request(_ items: [OTLPScopedLogRecord], resource: OTLPResource) -> OTLPLogsData {
        OTLPSignalData(resource: resource, grouping: items, scope: \.scope, item: \.record)
    }
}

extension OTLPSignalData {
    /// One resource group: `scopedItems`' items under `resource`, grouped by scope in order of first appearance.
    init<ScopedItem>(
        resource: OTLPResource, grouping scopedItems: [ScopedItem],
        scope: (ScopedItem) -> OTLPInstrumentationScope, item: (ScopedItem) -> Item
    ) {
        var groups: [OTLPScopeGroup<Item>] = []
        for scopedItem in scopedItems {
            let itemScope = scope(scopedItem)
            if let last = groups.indices.last, groups[last].scope == itemScope {
                groups[last].items.append(item(scopedItem))
            } else if let index = groups.firstIndex(where: { $0.scope == itemScope }) {
                groups[index].items.append(item(scopedItem))
            } else {
                groups.append(OTLPScopeGroup(scope: itemScope, items: [item(scopedItem)], schemaURL: ""))
            }
        }
        self.init(resourceGroups: [OTLPResourceGroup(resource: resource, scopeGroups: groups, schemaURL: "")])
    }
}
