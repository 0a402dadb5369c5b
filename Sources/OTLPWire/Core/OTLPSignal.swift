/// The two OTLP signals this package reads and writes.
public enum OTLPSignal: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Spans: `ExportTraceServiceRequest`.
    case traces
    /// Log records: `ExportLogsServiceRequest`.
    case logs

    /// The other signal.
    package var other: OTLPSignal { self == .traces ? .logs : .traces }

    public var description: String { rawValue }
}
