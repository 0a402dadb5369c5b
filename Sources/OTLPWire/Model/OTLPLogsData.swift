/// One logs request (`ExportLogsServiceRequest`): log records grouped by resource, then by scope.
public typealias OTLPLogsData = OTLPSignalData<OTLPLogRecord>

/// The log records of one resource: OTLP's `ResourceLogs`.
public typealias OTLPResourceLogs = OTLPResourceGroup<OTLPLogRecord>

/// The log records of one instrumentation scope: OTLP's `ScopeLogs`.
public typealias OTLPScopeLogs = OTLPScopeGroup<OTLPLogRecord>

extension OTLPSignalData where Item == OTLPLogRecord {
    /// A logs request of these resource groups.
    public init(resourceLogs: [OTLPResourceLogs]) {
        self.init(resourceGroups: resourceLogs)
    }

    /// A request holding `logRecords` under one resource and one scope.
    public init(resource: OTLPResource, scope: OTLPInstrumentationScope, logRecords: [OTLPLogRecord]) {
        self.init(resource: resource, scope: scope, items: logRecords)
    }

    /// OTLP's name for ``resourceGroups``.
    public var resourceLogs: [OTLPResourceLogs] {
        get { resourceGroups }
        _modify { yield &resourceGroups }
        set { resourceGroups = newValue }
    }

    /// The number of log records in the request.
    public var logRecordCount: Int { itemCount }
}

extension OTLPResourceGroup where Item == OTLPLogRecord {
    /// The log records of `resource`.
    public init(resource: OTLPResource?, scopeLogs: [OTLPScopeLogs] = [], schemaURL: String = "") {
        self.init(resource: resource, scopeGroups: scopeLogs, schemaURL: schemaURL)
    }

    /// OTLP's name for ``scopeGroups``.
    public var scopeLogs: [OTLPScopeLogs] {
        get { scopeGroups }
        _modify { yield &scopeGroups }
        set { scopeGroups = newValue }
    }
}

extension OTLPScopeGroup where Item == OTLPLogRecord {
    /// The log records of `scope`.
    public init(scope: OTLPInstrumentationScope?, logRecords: [OTLPLogRecord] = [], schemaURL: String = "") {
        self.init(scope: scope, items: logRecords, schemaURL: schemaURL)
    }

    /// OTLP's name for ``items``.
    public var logRecords: [OTLPLogRecord] {
        get { items }
        _modify { yield &items }
        set { items = newValue }
    }
}
