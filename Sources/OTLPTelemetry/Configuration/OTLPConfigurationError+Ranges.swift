// Range checks and clamping shared by every numeric setting of the pipeline.
//
// One rule for all of them: a configuration read with `OTLPTelemetryConfiguration.load(json:)` or checked
// with `validate()` is rejected when a value is out of its documented range (an error naming the key
// path); a value set in code is clamped into its range by the component that uses it, and a NaN becomes
// the setting's default.
extension OTLPConfigurationError {
    /// An error unless `value` lies in `range`.
    static func check(_ value: Int, in range: ClosedRange<Int>, _ keyPath: String, unit: String = "") -> OTLPConfigurationError? {
        guard !range.contains(value) else { return nil }
        return OTLPConfigurationError(
            keyPath: keyPath, message: "must be between \(range.lowerBound) and \(range.upperBound)\(unit), got \(value)")
    }

    /// An error unless `value` is a number (not NaN) in `range`; infinities are out of every range.
    static func check(_ value: Double, in range: ClosedRange<Double>, _ keyPath: String, unit: String = "") -> OTLPConfigurationError? {
        guard !range.contains(value) else { return nil }
        return OTLPConfigurationError(
            keyPath: keyPath,
            message:
                "must be between \(Self.format(range.lowerBound)) and \(Self.format(range.upperBound))\(unit), got \(Self.format(value))")
    }

    private static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
