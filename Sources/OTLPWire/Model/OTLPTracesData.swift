/// One traces request (`ExportTraceServiceRequest`): spans grouped by resource, then by scope.
public typealias OTLPTracesData = OTLPSignalData<OTLPSpan>

/// The spans of one resource: OTLP's `ResourceSpans`.
public typealias OTLPResourceSpans = OTLPResourceGroup<OTLPSpan>

/// The spans of one instrumentation scope: OTLP's `ScopeSpans`.
public typealias OTLPScopeSpans = OTLPScopeGroup<OTLPSpan>

extension OTLPSignalData where Item == OTLPSpan {
    /// A traces request of these resource groups.
    public init(resourceSpans: [OTLPResourceSpans]) {
        self.init(resourceGroups: resourceSpans)
    }

    /// A request holding `spans` under one resource and one scope.
    public init(resource: OTLPResource, scope: OTLPInstrumentationScope, spans: [OTLPSpan]) {
        self.init(resource: resource, scope: scope, items: spans)
    }

    /// OTLP's name for ``resourceGroups``.
    public var resourceSpans: [OTLPResourceSpans] {
        get { resourceGroups }
        _modify { yield &resourceGroups }
        set { resourceGroups = newValue }
    }

    /// The number of spans in the request.
    public var spanCount: Int { itemCount }
}

extension OTLPResourceGroup where Item == OTLPSpan {
    /// The spans of `resource`.
    public init(resource: OTLPResource?, scopeSpans: [OTLPScopeSpans] = [], schemaURL: String = "") {
        self.init(resource: resource, scopeGroups: scopeSpans, schemaURL: schemaURL)
    }

    /// OTLP's name for ``scopeGroups``.
    public var scopeSpans: [OTLPScopeSpans] {
        get { scopeGroups }
        _modify { yield &scopeGroups }
        set { scopeGroups = newValue }
    }
}

extension OTLPScopeGroup where Item == OTLPSpan {
    /// The spans of `scope`.
    public init(scope: OTLPInstrumentationScope?, spans: [OTLPSpan] = [], schemaURL: String = "") {
        self.init(scope: scope, items: spans, schemaURL: schemaURL)
    }

    /// OTLP's name for ``items``.
    public var spans: [OTLPSpan] {
        get { items }
        _modify { yield &items }
        set { items = newValue }
    }
}
