internal import OTLPWire

/// What a conversion left out: values of a known or unknown key with a type or value the converter cannot
/// use (a float where an integer belongs, an object where a string belongs, a histogram with bounds of two
/// units). Tolerant parsing skips them instead of failing the payload; they are counted here and reported
/// as `metrickit.skipped_value_count` / `metrickit.skipped_values` and in the conversion's `skippedValues`.
///
/// All are counted; the first ``maxRecordedSkippedValues`` are kept with their paths (a hostile payload can
/// hold millions of bad values, and a deep frame's path is long).
final class MetricKitConversionNotes {
    /// The first skipped values, with their paths.
    private(set) var recorded: [MetricKitConversionError] = []
    /// Every skipped value.
    private(set) var count = 0

    /// Most skipped values kept with their paths per payload.
    static let maxRecordedSkippedValues = 100
    /// Most skipped values listed in `metrickit.skipped_values` (all are counted).
    static let maxListedSkippedValues = 16
    /// Longest entry of `metrickit.skipped_values`, in UTF-8 bytes (a path into a deep stack is long).
    static let maxListedEntryBytes = 1024

    /// Notes a skipped value; the path is only made while values are still recorded.
    func skip(_ path: @autoclosure () -> String, _ reason: @autoclosure () -> String) {
        count += 1
        if recorded.count < Self.maxRecordedSkippedValues { recorded.append(MetricKitConversionError(path: path(), message: reason())) }
    }

    /// A position in the notes, to report what was skipped after it.
    struct Mark {
        var count: Int
        var recorded: Int
    }

    var mark: Mark { Mark(count: count, recorded: recorded.count) }

    /// The recorded values after `mark`, and a last entry `$: N more values skipped` for those not recorded.
    func skippedValues(since mark: Mark = Mark(count: 0, recorded: 0)) -> [MetricKitConversionError] {
        let listed = Array(recorded[mark.recorded...])
        let unlisted = count - mark.count - listed.count
        return unlisted > 0 ? listed + [MetricKitConversionError(path: "$", message: "\(unlisted) more values skipped")] : listed
    }

    /// `metrickit.skipped_value_count` and `metrickit.skipped_values` for what was skipped after `mark`; none
    /// when nothing was.
    func attributes(since mark: Mark = Mark(count: 0, recorded: 0)) -> [OTLPAttribute] {
        let total = count - mark.count
        guard total > 0 else { return [] }
        let listed = recorded[mark.recorded...].prefix(Self.maxListedSkippedValues).map { value -> OTLPAttributeValue in
            let text = value.description
            guard text.utf8.count > Self.maxListedEntryBytes else { return .string(text) }
            // Keep the end of the path (where the value is) and the reason.
            return .string("…" + String(decoding: text.utf8.suffix(Self.maxListedEntryBytes - 3), as: UTF8.self))
        }
        return [
            OTLPAttribute("metrickit.skipped_value_count", .int(Int64(total))),
            OTLPAttribute("metrickit.skipped_values", .array(listed)),
        ]
    }
}
