/// Formats Unix nanoseconds as UTC ISO 8601 without Foundation (deterministic, no locale).
enum UnixTime {
    static func iso8601(_ unixNano: UInt64) -> String {
        let seconds = Int64(unixNano / 1_000_000_000)
        let nanos = unixNano % 1_000_000_000
        let days = seconds / 86_400
        let secondOfDay = seconds % 86_400
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return
            "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(Int64(nanos), 9))Z"
    }

    /// A duration in the most readable unit: 850ns, 12.3µs, 45.6ms, 1.23s.
    static func duration(_ nanos: UInt64) -> String {
        func fixed(_ value: Double) -> String {
            let scaled = (value * 100).rounded() / 100
            var text = String(scaled)
            if text.hasSuffix(".0") { text.removeLast(2) }
            return text
        }
        switch nanos {
        case ..<1_000: return "\(nanos)ns"
        case ..<1_000_000: return fixed(Double(nanos) / 1_000) + "µs"
        case ..<1_000_000_000: return fixed(Double(nanos) / 1_000_000) + "ms"
        default: return fixed(Double(nanos) / 1_000_000_000) + "s"
        }
    }
}
