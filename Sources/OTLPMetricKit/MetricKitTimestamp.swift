import Foundation

/// MetricKit timestamps: `"2020-10-10 04:00:00 +0000"` (older OSes, with an offset) or
/// `"2022-11-14 00:00:00"` (current OSes: the device's local wall-clock time, no offset).
public enum MetricKitTimestamp {
    /// Unix nanoseconds of `text`; a timestamp without an offset is read at `assumedUTCOffsetSeconds`
    /// (default 0, UTC). `nil` when `text` is not one of the two forms.
    public static func unixNano(_ text: String, assumedUTCOffsetSeconds: Int = 0) -> UInt64? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: " ")
        guard parts.count == 2 || parts.count == 3 else { return nil }
        let date = parts[0].split(separator: "-")
        let time = parts[1].split(separator: ":")
        guard date.count == 3, time.count == 3,
              let year = Int(date[0]), let month = Int(date[1]), let day = Int(date[2]),
              let hour = Int(time[0]), let minute = Int(time[1]), let second = Int(time[2]),
              (1970...2500).contains(year),  // Unix nanoseconds in a UInt64 reach 2554; nothing before 1970
              (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        var offset = assumedUTCOffsetSeconds
        if parts.count == 3 {
            let zone = parts[2]
            guard zone.count == 5, let sign = zone.first, sign == "+" || sign == "-",
                  let hours = Int(zone.dropFirst().prefix(2)), let minutes = Int(zone.suffix(2)) else { return nil }
            offset = (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
        }
        // Days from the civil date (Howard Hinnant's algorithm).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        guard seconds >= 0 else { return nil }
        return UInt64(seconds) * 1_000_000_000
    }
}
