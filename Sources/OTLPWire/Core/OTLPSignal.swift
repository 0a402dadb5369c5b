/// The two OTLP signals this package reads and writes.
public enum OTLPSignal: String, Sendable, CaseIterable, CustomStringConvertible {
    case traces
    case logs

    /// The other signal.
    public var other: OTLPSignal { self == .traces ? .logs : .traces }

    public var description: String { rawValue }
}
