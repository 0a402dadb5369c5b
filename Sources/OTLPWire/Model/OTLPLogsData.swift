/// One logs request (`ExportLogsServiceRequest`): log records grouped by resource (OTLP's `ResourceLogs`, here
/// ``OTLPResourceGroup``), then by scope (`ScopeLogs`, here ``OTLPScopeGroup``).
public typealias OTLPLogsData = OTLPSignalData<OTLPLogRecord>
