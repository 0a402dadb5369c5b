import Foundation

/// MetricKit timestamps: `"2020-10-10 04:00:00 +0000"` (older OSes, with an offset) or
/// `"2022-11-14 00:00:00"` (current OSes: the device's local wall-clock time, no offset).
package enum MetricKitTimestamp {
    /// The largest offset from UTC accepted, in seconds, either way: 18 hours (64,800 s), the range
    /// Foundation's `TimeZone(secondsFromGMT:)` and `java.time.ZoneOffset` accept (real zones span
    /// −12:00 to +14:00). It bounds both `assumedUTCOffsetSeconds` and offsets written in timestamps.
    package static let maxUTCOffsetSeconds = 18 * 3600

    /// Years accepted: Unix nanoseconds in a `UInt64` reach 2554; nothing before 1970.
    static let years = 1970...2500

    /// Unix nanoseconds of `text`; a timestamp without an offset is read at `assumedUTCOffsetSeconds`
    /// (default 0, UTC). `nil` when `text` is not one of the two forms, its date or offset is out of range
    /// (years 1970-2500, offsets within ±``maxUTCOffsetSeconds``), or `assumedUTCOffsetSeconds` is.
    package static func unixNano(_ text: String, assumedUTCOffsetSeconds: Int = 0) -> UInt64? {
        guard (-maxUTCOffsetSeconds...maxUTCOffsetSeconds).contains(assumedUTCOffsetSeconds) else { return nil }
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: " ")
        guard parts.count == 2 || parts.count == 3 else { return nil }
        let date = parts[0].split(separator: "-")
        let time = parts[1].split(separator: ":")
        guard date.count == 3, time.count == 3,
            let year = digits(date[0], upTo: 4), let month = digits(date[1], upTo: 2), let day = digits(date[2], upTo: 2),
            let hour = digits(time[0], upTo: 2), let minute = digits(time[1], upTo: 2), let second = digits(time[2], upTo: 2),
            years.contains(year),
            (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        var offset = assumedUTCOffsetSeconds
        if parts.count == 3 {
            let zone = parts[2]
            guard zone.count == 5, let sign = zone.first, sign == "+" || sign == "-",
                let hours = digits(zone.dropFirst().prefix(2), upTo: 2), let minutes = digits(zone.suffix(2), upTo: 2),
                minutes < 60
            else { return nil }
            offset = (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
            guard (-maxUTCOffsetSeconds...maxUTCOffsetSeconds).contains(offset) else { return nil }
        }
        // Days from the civil date (Howard Hinnant's algorithm). Every operand is bounded above (year ≤
        // 2500, |offset| ≤ 64,800), so none of this can overflow.
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        guard seconds >= 0 else { return nil }
        let (nanos, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? nil : nanos
    }

    /// A run of 1 to `upTo` ASCII digits (no sign, no spaces) as a number.
    private static func digits(_ text: Substring, upTo maxCount: Int) -> Int? {
        guard !text.isEmpty, text.count <= maxCount, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }
}
