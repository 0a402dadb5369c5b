/// One OTLP export request: items (spans, log records or metrics) grouped by resource, then by
/// instrumentation scope.
///
/// Traces, logs and metrics requests share this shape; ``OTLPTracesData`` (`Item` is ``OTLPSpan``),
/// ``OTLPLogsData`` (`Item` is ``OTLPLogRecord``) and ``OTLPMetricsData`` (`Item` is ``OTLPMetric``) are its
/// forms. One name for each level, whatever the signal: OTLP's `resource_spans`, `resource_logs` and
/// `resource_metrics` are ``resourceGroups``, `scope_spans`, `scope_logs` and `scope_metrics` are
/// ``OTLPResourceGroup/scopeGroups``, `spans`, `log_records` and `metrics` are ``OTLPScopeGroup/items``.
public struct OTLPSignalData<Item> {
    /// The resource groups, in request order (`resource_spans`, `resource_logs` or `resource_metrics`).
    public var resourceGroups: [OTLPResourceGroup<Item>]

    /// A request of these resource groups (default none: an empty request, `OTLPTracesData()`).
    public init(resourceGroups: [OTLPResourceGroup<Item>] = []) {
        self.resourceGroups = resourceGroups
    }

    /// A request holding `items` under one resource and one scope.
    public init(resource: OTLPResource, scope: OTLPInstrumentationScope, items: [Item]) {
        self.resourceGroups = [
            OTLPResourceGroup(resource: resource, scopeGroups: [OTLPScopeGroup(scope: scope, items: items, schemaURL: "")], schemaURL: "")
        ]
    }

    /// Adds an item under its resource and scope, reusing the last group of an equal resource and scope
    /// (one without a schema URL).
    package mutating func append(_ item: Item, resource: OTLPResource, scope: OTLPInstrumentationScope) {
        let r =
            resourceGroups.lastIndex { $0.resource == resource && $0.schemaURL.isEmpty }
            ?? {
                resourceGroups.append(OTLPResourceGroup(resource: resource, scopeGroups: [], schemaURL: ""))
                return resourceGroups.count - 1
            }()
        let s =
            resourceGroups[r].scopeGroups.lastIndex { $0.scope == scope && $0.schemaURL.isEmpty }
            ?? {
                resourceGroups[r].scopeGroups.append(OTLPScopeGroup(scope: scope, items: [], schemaURL: ""))
                return resourceGroups[r].scopeGroups.count - 1
            }()
        resourceGroups[r].scopeGroups[s].items.append(item)
    }

    /// The number of items (spans, log records or metrics) in the request.
    package var itemCount: Int {
        resourceGroups.reduce(0) { $0 + $1.scopeGroups.reduce(0) { $0 + $1.items.count } }
    }
}

extension OTLPSignalData: Equatable where Item: Equatable {}
extension OTLPSignalData: Sendable where Item: Sendable {}
