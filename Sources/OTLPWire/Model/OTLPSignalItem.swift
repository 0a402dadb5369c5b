/// An item of one signal's requests: ``OTLPSpan`` (traces), ``OTLPLogRecord`` (logs) or ``OTLPMetric``
/// (metrics).
///
/// It says which signal it belongs to, so that code generic over the signal (an exporter of any) encodes
/// an ``OTLPSignalData`` of its items directly, with ``OTLPEncoder``, ``OTLPJSONEncoder`` or
/// ``OTLPRecordWriter``. Only these three types conform; other conformances are not supported.
public protocol OTLPSignalItem: Sendable {
    /// The signal whose requests carry this item.
    static var signal: OTLPSignal { get }
}

extension OTLPSpan: OTLPSignalItem {
    /// Traces: spans travel in `ExportTraceServiceRequest`s.
    public static var signal: OTLPSignal { .traces }
}

extension OTLPLogRecord: OTLPSignalItem {
    /// Logs: log records travel in `ExportLogsServiceRequest`s.
    public static var signal: OTLPSignal { .logs }
}

extension OTLPMetric: OTLPSignalItem {
    /// Metrics: metrics travel in `ExportMetricsServiceRequest`s.
    public static var signal: OTLPSignal { .metrics }
}

extension OTLPSignalData where Item: OTLPSignalItem {
    /// This request as the payload of its signal: how the encoders reach the item types' encodings (each
    /// specialization folds the cast away).
    package var payload: OTLPPayload {
        if let traces = self as? OTLPTracesData { return .traces(traces) }
        if let logs = self as? OTLPLogsData { return .logs(logs) }
        if let metrics = self as? OTLPMetricsData { return .metrics(metrics) }
        preconditionFailure("OTLPSignalItem: only OTLPSpan, OTLPLogRecord and OTLPMetric conform, not \(Item.self)")
    }
}
