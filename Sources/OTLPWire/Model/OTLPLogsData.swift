/// One logs request (`ExportLogsServiceRequest`): log records grouped by resource, then by scope.
public struct OTLPLogsData: Sendable, Equatable {
    public var resourceLogs: [OTLPResourceLogs]

    public init(resourceLogs: [OTLPResourceLogs] = []) {
        self.resourceLogs = resourceLogs
    }

    /// A request holding `logRecords` under one resource and one scope.
    public init(resource: OTLPResource, scope: OTLPInstrumentationScope, logRecords: [OTLPLogRecord]) {
        self.resourceLogs = [OTLPResourceLogs(resource: resource, scopeLogs: [OTLPScopeLogs(scope: scope, logRecords: logRecords)])]
    }

    /// Adds a log record under its resource and scope, reusing the group of an equal resource and scope.
    public mutating func append(_ logRecord: OTLPLogRecord, resource: OTLPResource, scope: OTLPInstrumentationScope) {
        let r = resourceLogs.lastIndex { $0.resource == resource && $0.schemaURL.isEmpty }
            ?? { resourceLogs.append(OTLPResourceLogs(resource: resource)); return resourceLogs.count - 1 }()
        let s = resourceLogs[r].scopeLogs.lastIndex { $0.scope == scope && $0.schemaURL.isEmpty }
            ?? { resourceLogs[r].scopeLogs.append(OTLPScopeLogs(scope: scope)); return resourceLogs[r].scopeLogs.count - 1 }()
        resourceLogs[r].scopeLogs[s].logRecords.append(logRecord)
    }

    /// The number of log records in the request.
    public var logRecordCount: Int { resourceLogs.reduce(0) { $0 + $1.scopeLogs.reduce(0) { $0 + $1.logRecords.count } } }
}

/// The log records of one resource: OTLP's `ResourceLogs`.
public struct OTLPResourceLogs: Sendable, Equatable {
    /// `nil` when the request carries no `resource` field.
    public var resource: OTLPResource?
    public var scopeLogs: [OTLPScopeLogs]
    public var schemaURL: String

    public init(resource: OTLPResource?, scopeLogs: [OTLPScopeLogs] = [], schemaURL: String = "") {
        self.resource = resource
        self.scopeLogs = scopeLogs
        self.schemaURL = schemaURL
    }
}

/// The log records of one instrumentation scope: OTLP's `ScopeLogs`.
public struct OTLPScopeLogs: Sendable, Equatable {
    /// `nil` when the request carries no `scope` field.
    public var scope: OTLPInstrumentationScope?
    public var logRecords: [OTLPLogRecord]
    public var schemaURL: String

    public init(scope: OTLPInstrumentationScope?, logRecords: [OTLPLogRecord] = [], schemaURL: String = "") {
        self.scope = scope
        self.logRecords = logRecords
        self.schemaURL = schemaURL
    }
}
