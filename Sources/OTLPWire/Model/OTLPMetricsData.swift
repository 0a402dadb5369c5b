/// One metrics request (`ExportMetricsServiceRequest`): metrics grouped by resource (OTLP's `ResourceMetrics`,
/// here ``OTLPResourceGroup``), then by scope (`ScopeMetrics`, here ``OTLPScopeGroup``).
///
/// Read by `OTLPDecoder.decodeMetrics` and ``OTLPJSONDecoder/decodeMetrics(_:)``, written by
/// ``OTLPEncoder/encodeMetrics(_:)`` and ``OTLPJSONEncoder/encodeMetrics(_:)``; the telemetry SDK records
/// spans and logs only.
public typealias OTLPMetricsData = OTLPSignalData<OTLPMetric>
