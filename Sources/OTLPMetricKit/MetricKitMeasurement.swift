import Foundation

/// A MetricKit measurement string (`"1843 sec"`, `"200,000 kB"`, `"2,717秒"`) converted to its base unit.
///
/// Base units: seconds, bytes, signal bars, average pixel luminance (apl), CPU instructions, and
/// milliseconds per second for hitch-time ratios (Apple's own unit for them). Numbers may carry `,`
/// thousands separators (older, locale-formatted payloads); units may be localized (the Chinese spellings
/// seen in iOS 14 payloads). See `Docs/MetricKitAttributes.md`.
package struct MetricKitMeasurement: Sendable, Equatable {
    /// The quantity a unit measures, named after its base unit.
    package enum BaseUnit: String, Sendable {
        /// Time, in seconds (`s`).
        case seconds = "s"
        /// Data size, in bytes (`By`).
        case bytes = "By"
        /// Cellular signal strength, in bars (`{bars}`).
        case bars = "{bars}"
        /// Average pixel luminance, in APL (`{apl}`).
        case apl = "{apl}"
        /// CPU instructions retired (`{instructions}`).
        case instructions = "{instructions}"
        /// Hitch time ratio, in milliseconds per second (`ms/s`).
        case millisecondsPerSecond = "ms/s"
    }

    /// The value in ``unit``.
    package var value: Double
    /// The base unit of ``value``.
    package var unit: BaseUnit
    /// What one of the written unit is in the base unit (`kB`: 1000): to scale values written in the same
    /// unit, such as an average's standard deviation.
    package var writtenUnitFactor: Double

    /// A measurement of `value` in `unit`.
    package init(value: Double, unit: BaseUnit, writtenUnitFactor: Double = 1) {
        self.value = value
        self.unit = unit
        self.writtenUnitFactor = writtenUnitFactor
    }

    /// Unit spellings: base unit, and what one written unit is in it as multiplier / divisor (a divisor
    /// keeps `820 ms` exactly 0.82 s). Case-sensitive: `kB` is kilobytes, `kb` kilobits.
    static let units: [String: (BaseUnit, Double, Double)] = [
        "sec": (.seconds, 1, 1), "secs.": (.seconds, 1, 1), "secs": (.seconds, 1, 1), "s": (.seconds, 1, 1), "秒": (.seconds, 1, 1),
        "ms": (.seconds, 1, 1e3), "毫秒": (.seconds, 1, 1e3), "min": (.seconds, 60, 1), "hr": (.seconds, 3600, 1),
        "μs": (.seconds, 1, 1e6), "µs": (.seconds, 1, 1e6), "ns": (.seconds, 1, 1e9), "ps": (.seconds, 1, 1e12),
        "byte": (.bytes, 1, 1), "bytes": (.bytes, 1, 1), "B": (.bytes, 1, 1),
        "kB": (.bytes, 1e3, 1), "KB": (.bytes, 1e3, 1), "千字节": (.bytes, 1e3, 1), "MB": (.bytes, 1e6, 1), "GB": (.bytes, 1e9, 1),
        "TB": (.bytes, 1e12, 1),
        "KiB": (.bytes, 1024, 1), "MiB": (.bytes, 1_048_576, 1), "GiB": (.bytes, 1_073_741_824, 1),
        "bit": (.bytes, 1, 8), "kb": (.bytes, 125, 1), "Mb": (.bytes, 125_000, 1),
        "bars": (.bars, 1, 1), "apl": (.apl, 1, 1), "kiloinstructions": (.instructions, 1000, 1),
        "ms per s": (.millisecondsPerSecond, 1, 1),
    ]

    /// Parses `"<number>[ ]<unit>"`; `nil` when the number or the unit is not understood, or when the value in
    /// the base unit is beyond the range of `Double` (a number of hundreds of digits).
    package init?(parsing text: String) {
        guard case .value(let measurement) = Self.parse(text) else { return nil }
        self = measurement
    }

    /// What `parse` makes of a measurement string.
    enum Parsed: Equatable {
        case value(MetricKitMeasurement)
        /// The number or the unit is not understood.
        case notUnderstood
        /// A number and a known unit, but the value (in the written or the base unit) is not a finite `Double`.
        case outOfRange
    }

    static func parse(_ text: String) -> Parsed {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let unitStart = trimmed.firstIndex(where: { !($0.isASCII && ($0.isNumber || $0 == "," || $0 == ".")) }),
            unitStart > trimmed.startIndex
        else { return .notUnderstood }
        let numberText = trimmed[..<unitStart]
        let unitText = trimmed[unitStart...].trimmingCharacters(in: .whitespaces)
        // A single ',' followed by 1-2 digits could be a decimal comma: ambiguous, refuse rather than guess.
        let commaParts = numberText.split(separator: ",", omittingEmptySubsequences: false)
        if commaParts.count == 2, let tail = commaParts.last, (1...2).contains(tail.count) { return .notUnderstood }
        if commaParts.count > 1, commaParts.dropFirst().contains(where: { $0.count != 3 && !$0.contains(".") }) { return .notUnderstood }
        guard let number = Double(numberText.replacingOccurrences(of: ",", with: "")),
            let (unit, multiplier, divisor) = Self.units[unitText]
        else { return .notUnderstood }
        // Checked: a number of 309+ digits is infinite as a Double, and a huge one times the unit's factor too.
        let value = number * multiplier / divisor
        guard number.isFinite, value.isFinite else { return .outOfRange }
        return .value(MetricKitMeasurement(value: value, unit: unit, writtenUnitFactor: multiplier / divisor))
    }
}
