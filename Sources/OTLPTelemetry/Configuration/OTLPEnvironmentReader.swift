/// Reads OpenTelemetry environment variables as the specification's "Environment Variable Specification"
/// says: an empty value is the same as an unset one, and a value that cannot be parsed or is out of range is
/// ignored with a warning naming the variable. Never traps, whatever the values hold.
struct OTLPEnvironmentReader {
    private let environment: [String: String]
    /// Warnings so far, in the order the variables were read.
    private(set) var warnings: [OTLPConfigurationWarning] = []

    init(_ environment: [String: String]) {
        self.environment = environment
    }

    /// The value of `name`, without surrounding white space; `nil` when unset or empty.
    func value(_ name: String) -> String? {
        guard let raw = environment[name] else { return nil }
        let value = raw.trimmingWhitespace
        return value.isEmpty ? nil : value
    }

    /// Records a warning about `name`.
    mutating func warn(_ name: String, _ message: String) {
        warnings.append(.environmentVariable(name, message))
    }

    /// A Boolean: `true` only for case-insensitive `true`; `false` for `false`; any other value is `false` with
    /// a warning, as the specification says.
    mutating func boolean(_ name: String) -> Bool? {
        guard let value = value(name) else { return nil }
        switch value.lowercased() {
        case "true": return true
        case "false": return false
        default:
            warn(name, "not true or false: \(Self.quoted(value)); treated as false")
            return false
        }
    }

    /// A whole number in `range`, else `nil` with a warning.
    mutating func integer(_ name: String, in range: ClosedRange<Int>, unit: String = "") -> Int? {
        guard let value = value(name) else { return nil }
        guard let number = parseInteger(name, value) else { return nil }
        guard range.contains(number) else {
            warn(name, "must be between \(range.lowerBound) and \(range.upperBound)\(unit), got \(number); ignored")
            return nil
        }
        return number
    }

    /// A duration or timeout in whole milliseconds, returned in seconds, within `range` (seconds), else `nil`
    /// with a warning. With `zeroMeansIndefinite` (the specification's timeouts), `0` means "no limit" and
    /// gives the range's upper bound.
    mutating func milliseconds(_ name: String, in range: ClosedRange<Double>, zeroMeansIndefinite: Bool = false) -> Double? {
        guard let value = value(name) else { return nil }
        guard let number = parseInteger(name, value, unit: " of milliseconds") else { return nil }
        if number == 0, zeroMeansIndefinite { return range.upperBound }
        let seconds = Double(number) / 1000
        guard number >= 0, range.contains(seconds) else {
            let low = Int((range.lowerBound * 1000).rounded(.up)), high = Int((range.upperBound * 1000).rounded(.down))
            warn(
                name,
                "must be between \(low) and \(high) milliseconds\(zeroMeansIndefinite ? " (or 0: no limit)" : ""), got \(number); ignored")
            return nil
        }
        return seconds
    }

    /// A finite number in `range`, else `nil` with a warning.
    mutating func number(_ name: String, in range: ClosedRange<Double>) -> Double? {
        guard let value = value(name) else { return nil }
        guard value.unicodeScalars.allSatisfy({ $0.isASCII }), let number = Double(value), number.isFinite else {
            warn(name, "not a number: \(Self.quoted(value)); ignored")
            return nil
        }
        guard range.contains(number) else {
            warn(name, "must be between \(Self.format(range.lowerBound)) and \(Self.format(range.upperBound)), got \(value); ignored")
            return nil
        }
        return number
    }

    /// One of `cases` (compared without regard to case), else `nil` with a warning listing them.
    mutating func choice<Value>(_ name: String, _ cases: [(String, Value)], rejection: ((String) -> String)? = nil) -> Value? {
        guard let value = value(name) else { return nil }
        if let match = cases.first(where: { $0.0 == value.lowercased() }) { return match.1 }
        let reason = rejection?(value) ?? "must be \(cases.map(\.0).joined(separator: ", ")), got \(Self.quoted(value))"
        warn(name, "\(reason); ignored")
        return nil
    }

    /// The names of a comma-separated list, lowercased, without empty entries or repeats.
    func list(_ name: String) -> [String]? {
        guard let value = value(name) else { return nil }
        var names: [String] = []
        for entry in value.split(separator: ",", omittingEmptySubsequences: false) {
            let name = String(entry).trimmingWhitespace.lowercased()
            if !name.isEmpty, !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// A `key=value,key2=value2` list (the W3C Baggage format without properties, as the specification's
    /// `OTEL_RESOURCE_ATTRIBUTES` and `OTEL_EXPORTER_OTLP_HEADERS` use): keys and values percent-decoded and
    /// trimmed, empty entries skipped. Each entry without `=`, with an empty key, or with a bad percent
    /// escape is reported through `malformed` (its position, from 1, and why) and left out; percent-encoded
    /// bytes that are not UTF-8 become U+FFFD.
    func keyValues(_ name: String, malformed: (Int, String) -> Void) -> [(key: String, value: String)]? {
        guard let value = value(name) else { return nil }
        var pairs: [(key: String, value: String)] = []
        for (index, entry) in value.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            let entry = String(entry).trimmingWhitespace
            if entry.isEmpty { continue }
            guard let equals = entry.firstIndex(of: "=") else {
                malformed(index + 1, "no \"=\"")
                continue
            }
            guard let key = Self.percentDecoded(String(entry[..<equals]).trimmingWhitespace),
                let decoded = Self.percentDecoded(String(entry[entry.index(after: equals)...]).trimmingWhitespace)
            else {
                malformed(index + 1, "a \"%\" not followed by two hexadecimal digits")
                continue
            }
            guard !key.isEmpty else {
                malformed(index + 1, "an empty key")
                continue
            }
            pairs.append((key, decoded))
        }
        return pairs
    }

    /// `value` with every `%XX` replaced by its byte (invalid UTF-8 becomes U+FFFD), or `nil` when a `%` is
    /// not followed by two hexadecimal digits.
    static func percentDecoded(_ value: String) -> String? {
        guard value.contains("%") else { return value }
        var bytes: [UInt8] = []
        var utf8 = value.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = utf8.next().flatMap(hexValue), let low = utf8.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `value` in quotes for a warning: at most 64 characters, control and format characters escaped.
    static func quoted(_ value: String) -> String {
        "\"\(OTLPDiagnostics.printable(value, maxCharacters: 64))\""
    }

    private mutating func parseInteger(_ name: String, _ value: String, unit: String = "") -> Int? {
        let digits = value.hasPrefix("-") || value.hasPrefix("+") ? value.dropFirst() : Substring(value)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            warn(name, "not a whole number\(unit): \(Self.quoted(value)); ignored")
            return nil
        }
        guard let number = Int(value) else {
            warn(name, "out of range: \(Self.quoted(value)); ignored")
            return nil
        }
        return number
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}

extension String {
    /// This string without leading and trailing spaces, tabs and line breaks.
    fileprivate var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[start...end])
    }
}
