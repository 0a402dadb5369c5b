/// One OTLP export request of either signal: items (spans or log records) grouped by resource, then by
/// instrumentation scope.
///
/// Traces and logs requests share this shape; ``OTLPTracesData`` (`Item` is ``OTLPSpan``) and
/// ``OTLPLogsData`` (`Item` is ``OTLPLogRecord``) are its two forms. One name for each level, whatever the
/// signal: OTLP's `resource_spans` and `resource_logs` are ``resourceGroups``, `scope_spans` and `scope_logs`
/// are ``OTLPResourceGroup/scopeGroups``, `spans` and `log_records` are ``OTLPScopeGroup/items``.
public struct OTLPSignalData<Item> {
    /// The resource groups, in request order (`resource_spans` or `resource_logs`).
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
    public mutating func append(_ item: Item, resource: OTLPResource, scope: OTLPInstrumentationScope) {
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

    /// The number of items (spans or log records) in the request.
    public var itemCount: Int {
        resourceGroups.reduce(0) { $0 + $1.scopeGroups.reduce(0) { $0 + $1.items.count } }
    }
}

extension OTLPSignalData: Equatable where Item: Equatable {}
extension OTLPSignalData: Sendable where Item: Sendable {}
