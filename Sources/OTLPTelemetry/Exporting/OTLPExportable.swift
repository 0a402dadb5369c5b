public import OTLPWire

/// A finished span with the instrumentation scope that produced it.
public struct OTLPScopedSpan: Sendable {
    public var scope: OTLPInstrumentationScope
    public var span: OTLPSpan

    public init(scope: OTLPInstrumentationScope, span: OTLPSpan) {
        self.scope = scope
        self.span = span
    }
}

/// An emitted log record with the instrumentation scope that produced it.
public struct OTLPScopedLogRecord: Sendable {
    public var scope: OTLPInstrumentationScope
    public var record: OTLPLogRecord

    public init(scope: OTLPInstrumentationScope, record: OTLPLogRecord) {
        self.scope = scope
        self.record = record
    }
}

/// An item the pipeline carries: it knows what it counts as and how a batch becomes one request.
public protocol OTLPExportable: Sendable {
    static var kind: OTLPItemKind { get }
    /// One request holding `items` under `resource`, grouped by scope in order of first appearance.
    static func request(_ items: [Self], resource: OTLPResource) -> OTLPPayload
    /// Whether a value of this item (an attribute, of the item, its scope, events or links, or a log body)
    /// nests arrays and key-value lists more than `levels` deep. The exporter asks before encoding, which
    /// recurses per level: such an item is dropped (`item_too_large`) instead of exhausting its stack.
    func nestsValues(deeperThan levels: Int) -> Bool
}

extension OTLPScopedSpan: OTLPExportable {
    public static var kind: OTLPItemKind { .span }

    public func nestsValues(deeperThan levels: Int) -> Bool {
        scope.attributes.nest(deeperThan: levels) || span.attributes.nest(deeperThan: levels)
            || span.events.contains { $0.attributes.nest(deeperThan: levels) } || span.links.contains { $0.attributes.nest(deeperThan: levels) }
    }

    public static func request(_ items: [OTLPScopedSpan], resource: OTLPResource) -> OTLPPayload {
        var groups: [OTLPScopeSpans] = []
        for item in items {
            if let last = groups.indices.last, groups[last].scope == item.scope {
                groups[last].spans.append(item.span)
            } else if let index = groups.firstIndex(where: { $0.scope == item.scope }) {
                groups[index].spans.append(item.span)
            } else {
                groups.append(OTLPScopeSpans(scope: item.scope, spans: [item.span]))
            }
        }
        return .traces(OTLPTracesData(resourceSpans: [OTLPResourceSpans(resource: resource, scopeSpans: groups)]))
    }
}

extension OTLPScopedLogRecord: OTLPExportable {
    public static var kind: OTLPItemKind { .logRecord }

    public func nestsValues(deeperThan levels: Int) -> Bool {
        scope.attributes.nest(deeperThan: levels) || record.attributes.nest(deeperThan: levels)
            || record.body?.nests(deeperThan: levels) == true
    }

    public static func request(_ items: [OTLPScopedLogRecord], resource: OTLPResource) -> OTLPPayload {
        var groups: [OTLPScopeLogs] = []
        for item in items {
            if let last = groups.indices.last, groups[last].scope == item.scope {
                groups[last].logRecords.append(item.record)
            } else if let index = groups.firstIndex(where: { $0.scope == item.scope }) {
                groups[index].logRecords.append(item.record)
            } else {
                groups.append(OTLPScopeLogs(scope: item.scope, logRecords: [item.record]))
            }
        }
        return .logs(OTLPLogsData(resourceLogs: [OTLPResourceLogs(resource: resource, scopeLogs: groups)]))
    }
}
