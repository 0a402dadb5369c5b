internal import OTLPWire

/// What a conversion left out: values of a known or unknown key with a type or value the converter cannot
/// use (a float where an integer belongs, an object where a string belongs, a histogram with bounds of two
/// units). Tolerant parsing skips them instead of failing the payload; they are counted here and reported
/// as `metrickit.skipped_value_count` / `metrickit.skipped_values` and in the conversion's `skippedValues`.
final class MetricKitConversionNotes {
    private(set) var skipped: [MetricKitConversionError] = []
    /// Paths already noted: a value read twice is counted once.
    private var notedPaths: Set<String> = []

    /// Most skipped values listed in `metrickit.skipped_values` (all are counted).
    static let maxListedSkippedValues = 16

    func skip(_ path: String, _ reason: String) {
        guard notedPaths.insert(path).inserted else { return }
        skipped.append(MetricKitConversionError(path: path, message: reason))
    }

    /// `metrickit.skipped_value_count` and `metrickit.skipped_values` for `values`; none when empty.
    static func attributes(_ values: ArraySlice<MetricKitConversionError>) -> [OTLPAttribute] {
        guard !values.isEmpty else { return [] }
        return [
            OTLPAttribute("metrickit.skipped_value_count", .int(Int64(values.count))),
            OTLPAttribute("metrickit.skipped_values", .array(values.prefix(maxListedSkippedValues).map { .string($0.description) })),
        ]
    }
}
