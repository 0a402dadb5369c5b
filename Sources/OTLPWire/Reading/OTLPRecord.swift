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
        case .traces(let data): data.spanCount
        case .logs(let data): data.logRecordCount
        }
    }
}

/// One decoded record of a stream.
public struct OTLPRecord: Sendable {
    /// 0-based position in the stream.
    public var index: Int
    /// Offset of the record's first byte in the decompressed stream.
    public var streamOffset: Int
    /// Size of the message (without its framing).
    public var byteCount: Int
    /// The decoded request.
    public var payload: OTLPPayload
}
