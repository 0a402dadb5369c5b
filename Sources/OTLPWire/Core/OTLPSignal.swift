/// The OTLP signals this package reads and writes. The telemetry SDK records traces and logs; metrics are
/// read, written and sent by the codecs, the record readers and writers, and `otlp-dump`.
public enum OTLPSignal: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Spans: `ExportTraceServiceRequest`.
    case traces
    /// Log records: `ExportLogsServiceRequest`.
    case logs
    /// Metrics and their data points: `ExportMetricsServiceRequest`.
    case metrics

    /// The signals the telemetry SDK records, exports and spools: traces and logs.
    package static let sdkSignals: [OTLPSignal] = [.traces, .logs]

    public var description: String { rawValue }
}
