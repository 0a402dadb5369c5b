/// One traces request (`ExportTraceServiceRequest`): spans grouped by resource, then by scope.
public struct OTLPTracesData: Sendable, Equatable {
    public var resourceSpans: [OTLPResourceSpans]

    public init(resourceSpans: [OTLPResourceSpans] = []) {
        self.resourceSpans = resourceSpans
    }

    /// A request holding `spans` under one resource and one scope.
    public init(resource: OTLPResource, scope: OTLPInstrumentationScope, spans: [OTLPSpan]) {
        self.resourceSpans = [OTLPResourceSpans(resource: resource, scopeSpans: [OTLPScopeSpans(scope: scope, spans: spans)])]
    }

    /// Adds a span under its resource and scope, reusing the group of an equal resource and scope.
    public mutating func append(_ span: OTLPSpan, resource: OTLPResource, scope: OTLPInstrumentationScope) {
        let r = resourceSpans.lastIndex { $0.resource == resource && $0.schemaURL.isEmpty }
            ?? { resourceSpans.append(OTLPResourceSpans(resource: resource)); return resourceSpans.count - 1 }()
        let s = resourceSpans[r].scopeSpans.lastIndex { $0.scope == scope && $0.schemaURL.isEmpty }
            ?? { resourceSpans[r].scopeSpans.append(OTLPScopeSpans(scope: scope)); return resourceSpans[r].scopeSpans.count - 1 }()
        resourceSpans[r].scopeSpans[s].spans.append(span)
    }

    /// The number of spans in the request.
    public var spanCount: Int { resourceSpans.reduce(0) { $0 + $1.scopeSpans.reduce(0) { $0 + $1.spans.count } } }
}

/// The spans of one resource: OTLP's `ResourceSpans`.
public struct OTLPResourceSpans: Sendable, Equatable {
    /// `nil` when the request carries no `resource` field.
    public var resource: OTLPResource?
    public var scopeSpans: [OTLPScopeSpans]
    public var schemaURL: String

    public init(resource: OTLPResource?, scopeSpans: [OTLPScopeSpans] = [], schemaURL: String = "") {
        self.resource = resource
        self.scopeSpans = scopeSpans
        self.schemaURL = schemaURL
    }
}

/// The spans of one instrumentation scope: OTLP's `ScopeSpans`.
public struct OTLPScopeSpans: Sendable, Equatable {
    /// `nil` when the request carries no `scope` field.
    public var scope: OTLPInstrumentationScope?
    public var spans: [OTLPSpan]
    public var schemaURL: String

    public init(scope: OTLPInstrumentationScope?, spans: [OTLPSpan] = [], schemaURL: String = "") {
        self.scope = scope
        self.spans = spans
        self.schemaURL = schemaURL
    }
}
