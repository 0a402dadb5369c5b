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
    /// Set on a journaled span (``OTLPSpanJournal``): the journal to tell when the exporter has taken it, and
    /// a recovered span's own resource. `nil` for every other span.
    package var journalTag: OTLPSpanJournalTag?

    /// The span as stored (its attributes empty while ``pendingSpanAttributes`` holds them), read without
    /// converting them.
    var storedSpanForJournal: OTLPSpan {
        _read { yield storedSpan }
    }
    /// The attributes still to be converted, if any.
    var pendingSpanAttributes: OTLPPendingSpanAttributes? { pendingAttributes }

    /// The span's IDs, read without converting pending attributes.
    var storedSpanIDs: (traceID: OTLPTraceID?, spanID: OTLPSpanID?) { (storedSpan.traceID, storedSpan.spanID) }

    /// A span produced under `scope`.
    package init(scope: OTLPInstrumentationScope, span: OTLPSpan) {
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
        _ = convertPendingAttributes()
    }

    /// ``prepareForExport()``, keeping the attributes' storage in the Tracing API's form in `releases` (for an
    /// application's thread to free, see ``OTLPDeferredReleases``) instead of freeing it here. Attributes that
    /// hold values of the application's own types (`stringConvertible`) are freed here, as before: freeing them
    /// runs the application's code, which must not run inside an unrelated span's `end()`.
    mutating func prepareForExport(deferringReleasesTo releases: inout OTLPDeferredReleases) {
        guard let (converted, holdsApplicationValues) = convertPendingAttributes(), !holdsApplicationValues else { return }
        releases.append(converted.attributes)
    }

    /// Converts the pending attributes and applies the limits, once: the attributes converted, and whether they
    /// hold values of the application's own types; `nil` when there was nothing to convert.
    private mutating func convertPendingAttributes() -> (OTLPPendingSpanAttributes, holdsApplicationValues: Bool)? {
        guard let pendingAttributes else { return nil }
        self.pendingAttributes = nil
        let holdsApplicationValues = pendingAttributes.complete(&storedSpan)
        limitsApplied = true
        return (pendingAttributes, holdsApplicationValues)
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

    /// Whether any of `spans` nests values deeper than `levels` (``nestsValues(deeperThan:)``). The spans are
    /// read in place: a prepared span as the tracer's limits left it, under a scope without attributes, is
    /// decided from those two stored fields (calling `nestsValues` on each element of the batch copied it out
    /// for the call, retaining and releasing every field: about 600 of the worker's instructions per span).
    static func anyNestsValues(_ spans: [OTLPScopedSpan], deeperThan levels: Int) -> Bool {
        spans.withUnsafeBufferPointer { buffer in
            for index in buffer.indices {
                // `limitsApplied` is set only once the pending attributes are converted (and cleared by a change).
                if levels >= OTLPLimits.maxValueNestingLevels, buffer[index].limitsApplied, buffer[index].scope.attributes.isEmpty {
                    continue
                }
                if buffer[index].nestsValues(deeperThan: levels) { return true }
            }
            return false
        }
    }

    public static func request(_ items: [OTLPScopedSpan], resource: OTLPResource) -> OTLPTracesData {
        // Spans recovered from a previous process's journal keep that process's resource.
        guard items.contains(where: { $0.journalTag?.resource != nil }) else {
            return OTLPSignalData(resourceGroups: [OTLPResourceGroup(resource: resource, scopeGroups: scopeGroups(items), schemaURL: "")])
        }
        var groups: [(resource: OTLPResource, items: [OTLPScopedSpan])] = []
        for item in items {
            let itemResource = item.journalTag?.resource ?? resource
            if let index = groups.firstIndex(where: { $0.resource == itemResource }) {
                groups[index].items.append(item)
            } else {
                groups.append((itemResource, [item]))
            }
        }
        return OTLPSignalData(
            resourceGroups: groups.map { OTLPResourceGroup(resource: $0.resource, scopeGroups: scopeGroups($0.items), schemaURL: "") })
    }

    /// `items`' spans grouped by scope in order of first appearance. The items are read in place, by index (a
    /// `for … in` loop, a closure or a key path copied each one, retaining and releasing every field), and each
    /// span is copied once, into its group.
    static func scopeGroups(_ items: [OTLPScopedSpan]) -> [OTLPScopeGroup<OTLPSpan>] {
        var scopes: [OTLPInstrumentationScope] = []
        var spans: [[OTLPSpan]] = []
        // The group of the previous span: consecutive spans of one scope are the common case.
        var last = -1
        for index in items.indices {
            if last < 0 || scopes[last] != items[index].scope {
                if let found = scopes.firstIndex(of: items[index].scope) {
                    last = found
                } else {
                    scopes.append(items[index].scope)
                    var group: [OTLPSpan] = []
                    // Most batches have one scope: its array is made once, at its final size.
                    if spans.isEmpty { group.reserveCapacity(items.count) }
                    spans.append(group)
                    last = spans.count - 1
                }
            }
            if items[index].pendingAttributes == nil {
                spans[last].append(items[index].storedSpan)
            } else {
                spans[last].append(items[index].span)
            }
        }
        return scopes.indices.map { OTLPScopeGroup(scope: scopes[$0], items: spans[$0], schemaURL: "") }
    }
}
