/// How the values of a sum or histogram aggregate over time: OTLP's `AggregationTemporality`.
///
/// A struct over the raw enum number, so values outside the known range (which a reader keeps as they
/// are) stay representable.
public struct OTLPAggregationTemporality: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The enum number as on the wire.
    public var rawValue: Int32
    /// The temporality numbered `rawValue`.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// 0: not given (the data is not valid OTLP, but is kept as read).
    public static let unspecified = OTLPAggregationTemporality(rawValue: 0)
    /// 1: each point covers the time since the previous point.
    public static let delta = OTLPAggregationTemporality(rawValue: 1)
    /// 2: each point covers the time since a fixed start.
    public static let cumulative = OTLPAggregationTemporality(rawValue: 2)

    /// `UNSPECIFIED`, `DELTA`, `CUMULATIVE`, or `TEMPORALITY(n)` for another number.
    public var description: String {
        switch rawValue {
        case 0: "UNSPECIFIED"
        case 1: "DELTA"
        case 2: "CUMULATIVE"
        default: "TEMPORALITY(\(rawValue))"
        }
    }
}
