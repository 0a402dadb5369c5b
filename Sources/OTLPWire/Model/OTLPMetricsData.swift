/// One metrics request (`ExportMetricsServiceRequest`): metrics grouped by resource (OTLP's `ResourceMetrics`,
/// here ``OTLPResourceGroup``), then by scope (`ScopeMetrics`, here ``OTLPScopeGroup``).
///
/// Read by `OTLPDecoder.decodeMetrics(_:)`, `OTLPJSONDecoder.decodeMetrics(_:)` and ``OTLPRecordReader``,
/// written by the generic `encode(_:)` of ``OTLPEncoder`` and ``OTLPJSONEncoder`` and by ``OTLPRecordWriter``;
/// the telemetry SDK records spans and logs only.
public typealias OTLPMetricsData = OTLPSignalData<OTLPMetric>
