/// The value of a number data point or an exemplar: OTLP's `as_double` or `as_int`.
public enum OTLPNumberValue: Sendable, Equatable {
    /// A 64-bit floating-point value (`as_double`).
    case double(Double)
    /// A signed 64-bit integer value (`as_int`).
    case int(Int64)
}
