/// One traces request (`ExportTraceServiceRequest`): spans grouped by resource (OTLP's `ResourceSpans`, here
/// ``OTLPResourceGroup``), then by scope (`ScopeSpans`, here ``OTLPScopeGroup``).
public typealias OTLPTracesData = OTLPSignalData<OTLPSpan>
