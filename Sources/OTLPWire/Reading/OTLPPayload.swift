/// A decoded request of either signal.
public enum OTLPPayload: Sendable {
    /// A traces request: `ExportTraceServiceRequest`.
    case traces(OTLPTracesData)
    /// A logs request: `ExportLogsServiceRequest`.
    case logs(OTLPLogsData)

    /// Which signal the request carries.
    public var signal: OTLPSignal {
        switch self {
        case .traces: .traces
        case .logs: .logs
        }
    }

    /// Spans or log records in the request.
    public var itemCount: Int {
        switch self {
        case .traces(let data): data.itemCount
        case .logs(let data): data.itemCount
        }
    }
}
