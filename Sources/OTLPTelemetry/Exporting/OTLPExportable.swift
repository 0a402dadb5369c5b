public import OTLPWire

/// A finished span with the instrumentation scope that produced it.
public struct OTLPScopedSpan: Sendable {
    /// The instrumentation scope of the tracer that made the span.
    public var scope: OTLPInstrumentationScope
    /// The finished span.
    public var span: OTLPSpan

    /// A span produced under `scope`.
    public init(scope: OTLPInstrumentationScope, span: OTLPSpan) {
        self.scope = scope
        self.span = span
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
    /// What the item counts as in ``OTLPTelemetryCounters``.
    static var kind: OTLPItemKind { get }
    /// One request holding `items` under `resource`, grouped by scope in order of first appearance.
    static func request(_ items: [Self], resource: OTLPResource) -> OTLPPayload
    /// Whether a value of this item (an attribute, of the item, its scope, events or links, or a log body)
    /// nests arrays and key-value lists more than `levels` deep. The exporter asks before encoding, which
    /// recurses per level: such an item is dropped (`item_too_large`) instead of exhausting its stack.
    func nestsValues(deeperThan levels: Int) -> Bool
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
        let encodable = items.filter { !$0.nestsValues(deeperThan: maxEncodableValueNesting) }
        let tooLarge = items.count - encodable.count
        if tooLarge > 0 {
            counters.dropped(tooLarge, kind, .itemTooLarge)
            diagnostics(
                "\(reporter): \(tooLarge) \(kind.noun(tooLarge)) dropped (\(OTLPDropReason.itemTooLarge)): values nested deeper than \(maxEncodableValueNesting) levels")
        }
        return encodable
    }
}

extension OTLPScopedSpan: OTLPExportable {
    public static var kind: OTLPItemKind { .span }

    public func nestsValues(deeperThan levels: Int) -> Bool {
        scope.attributes.nest(deeperThan: levels) || span.attributes.nest(deeperThan: levels)
            || span.events.contains { $0.attributes.nest(deeperThan: levels) } || span.links.contains { $0.attributes.nest(deeperThan: levels) }
    }

    public static func request(_ items: [OTLPScopedSpan], resource: OTLPResource) -> OTLPPayload {
        .traces(OTLPSignalData(resource: resource, grouping: items, scope: \.scope, item: \.span))
    }
}

extension OTLPScopedLogRecord: OTLPExportable {
    public static var kind: OTLPItemKind { .logRecord }

    public func nestsValues(deeperThan levels: Int) -> Bool {
        scope.attributes.nest(deeperThan: levels) || record.attributes.nest(deeperThan: levels)
            || record.body?.nests(deeperThan: levels) == true
    }

    public static func request(_ items: [OTLPScopedLogRecord], resource: OTLPResource) -> OTLPPayload {
        .logs(OTLPSignalData(resource: resource, grouping: items, scope: \.scope, item: \.record))
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
