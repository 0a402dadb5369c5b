/// The items of one instrumentation scope: OTLP's `ScopeSpans`, `ScopeLogs` or `ScopeMetrics`.
public struct OTLPScopeGroup<Item> {
    /// `nil` when the request carries no `scope` field.
    public var scope: OTLPInstrumentationScope?
    /// The spans, log records or metrics (`spans`, `log_records` or `metrics`).
    public var items: [Item]
    /// The schema URL of the scope's data (`schema_url`); empty when absent.
    public var schemaURL: String

    /// The items of `scope`.
    public init(scope: OTLPInstrumentationScope?, items: [Item] = [], schemaURL: String = "") {
        self.scope = scope
        self.items = items
        self.schemaURL = schemaURL
    }
}

extension OTLPScopeGroup: Equatable where Item: Equatable {}
extension OTLPScopeGroup: Sendable where Item: Sendable {}
