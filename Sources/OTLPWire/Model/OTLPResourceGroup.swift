/// The items of one resource: OTLP's `ResourceSpans`, `ResourceLogs` or `ResourceMetrics`.
public struct OTLPResourceGroup<Item> {
    /// `nil` when the request carries no `resource` field.
    public var resource: OTLPResource?
    /// The scope groups (`scope_spans`, `scope_logs` or `scope_metrics`).
    public var scopeGroups: [OTLPScopeGroup<Item>]
    /// The schema URL of the resource's data (`schema_url`); empty when absent.
    public var schemaURL: String

    /// The items of `resource`, grouped by scope.
    public init(resource: OTLPResource?, scopeGroups: [OTLPScopeGroup<Item>] = [], schemaURL: String = "") {
        self.resource = resource
        self.scopeGroups = scopeGroups
        self.schemaURL = schemaURL
    }
}

extension OTLPResourceGroup: Equatable where Item: Equatable {}
extension OTLPResourceGroup: Sendable where Item: Sendable {}
