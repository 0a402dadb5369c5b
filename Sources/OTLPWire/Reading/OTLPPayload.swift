/// A decoded request of one signal.
public enum OTLPPayload: Sendable {
    /// A traces request: `ExportTraceServiceRequest`.
    case traces(OTLPTracesData)
    /// A logs request: `ExportLogsServiceRequest`.
    case logs(OTLPLogsData)
    /// A metrics request: `ExportMetricsServiceRequest`.
    case metrics(OTLPMetricsData)

    /// Which signal the request carries.
    public var signal: OTLPSignal {
        switch self {
        case .traces: .traces
        case .logs: .logs
        case .metrics: .metrics
        }
    }

    /// Spans, log records or metrics in the request.
    public var itemCount: Int {
        switch self {
        case .traces(let data): data.itemCount
        case .logs(let data): data.itemCount
        case .metrics(let data): data.itemCount
        }
    }
}
