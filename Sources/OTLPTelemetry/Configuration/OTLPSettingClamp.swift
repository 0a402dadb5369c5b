/// Clamping for values set in code.
package enum OTLPSettingClamp {
    /// `value` brought into `range`.
    package static func clamp(_ value: Int, to range: ClosedRange<Int>) -> Int {
        min(max(value, range.lowerBound), range.upperBound)
    }

    /// `value` brought into `range`; NaN becomes `defaultValue` (itself clamped).
    package static func clamp(_ value: Double, to range: ClosedRange<Double>, default defaultValue: Double) -> Double {
        let value = value.isNaN ? defaultValue : value
        return min(max(value, range.lowerBound), range.upperBound)
    }
}
