internal import OTLPWire

/// A JSON object of a payload being read, with its path for error messages. Every key is optional;
/// a key with the wrong type is an error naming its path.
struct MetricKitJSON {
    let members: [(String, JSONValue)]
    let path: String

    static func parse(_ bytes: [UInt8], maxDepth: Int = 256) throws(MetricKitConversionError) -> MetricKitJSON {
        let value: JSONValue
        do {
            value = try bytes.withUnsafeBufferPointer { buffer in
                Result { () throws(JSONParser.Failure) in try JSONParser.parse(buffer, maxDepth: maxDepth) }
            }.get()
        } catch {
            throw MetricKitConversionError(path: "$", message: "not valid JSON at byte \(error.offset): \(error.message)")
        }
        guard case .object(let members) = value else { throw MetricKitConversionError(path: "$", message: "not a JSON object") }
        return MetricKitJSON(members: members, path: "$")
    }

    var keys: [String] { members.map(\.0) }

    func value(_ key: String) -> JSONValue? {
        members.last { $0.0 == key }?.1
    }

    func childPath(_ key: String) -> String { "\(path).\(key)" }

    func object(_ key: String) throws(MetricKitConversionError) -> MetricKitJSON? {
        guard let value = value(key) else { return nil }
        guard case .object(let members) = value else { throw MetricKitConversionError(path: childPath(key), message: "expected an object") }
        return MetricKitJSON(members: members, path: childPath(key))
    }

    func array(_ key: String) throws(MetricKitConversionError) -> [JSONValue]? {
        guard let value = value(key) else { return nil }
        guard case .array(let elements) = value else { throw MetricKitConversionError(path: childPath(key), message: "expected an array") }
        return elements
    }

    func string(_ key: String) throws(MetricKitConversionError) -> String? {
        guard let value = value(key) else { return nil }
        switch value {
        case .string(let text): return text
        case .number(let text): return text
        default: throw MetricKitConversionError(path: childPath(key), message: "expected a string")
        }
    }

    func integer(_ key: String) throws(MetricKitConversionError) -> Int64? {
        guard let value = value(key) else { return nil }
        switch value {
        case .number(let text), .string(let text):
            if let int = Int64(text) { return int }
            if let double = Double(text), double.rounded() == double, abs(double) < 9.2e18 { return Int64(double) }
        default: break
        }
        throw MetricKitConversionError(path: childPath(key), message: "expected an integer")
    }

    func double(_ key: String) throws(MetricKitConversionError) -> Double? {
        guard let value = value(key) else { return nil }
        switch value {
        case .number(let text), .string(let text):
            if let double = Double(text) { return double }
        default: break
        }
        throw MetricKitConversionError(path: childPath(key), message: "expected a number")
    }

    /// Booleans may arrive as `true`/`false` or as `"1"`/`"0"` (NSNumber descriptions).
    func bool(_ key: String) throws(MetricKitConversionError) -> Bool? {
        guard let value = value(key) else { return nil }
        switch value {
        case .bool(let bool): return bool
        case .string("1"), .number("1"): return true
        case .string("0"), .number("0"): return false
        default: throw MetricKitConversionError(path: childPath(key), message: "expected a boolean")
        }
    }

    /// A measurement string; `.unparsed` keeps the raw text when the number or unit is not understood.
    enum Measured { case value(MetricKitMeasurement), unparsed(String) }

    func measurement(_ key: String) throws(MetricKitConversionError) -> Measured? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else {
            throw MetricKitConversionError(path: childPath(key), message: "expected a measurement string such as \"12 sec\"")
        }
        if let parsed = MetricKitMeasurement(parsing: text) { return .value(parsed) }
        return .unparsed(text)
    }

    /// A histogram (`histogramValue` buckets sorted by index; `{}` buckets skipped).
    func histogram(_ key: String) throws(MetricKitConversionError) -> MetricKitHistogram? {
        guard let histogram = try object(key), let values = try histogram.object("histogramValue") else { return nil }
        var indexed: [(Int, MetricKitHistogram.Bucket)] = []
        var unit: MetricKitMeasurement.BaseUnit?
        for (index, _) in values.members {
            guard let bucket = try values.object(index), let count = try bucket.integer("bucketCount"),
                  let startText = try bucket.string("bucketStart"), let endText = try bucket.string("bucketEnd") else { continue }
            guard let start = MetricKitMeasurement(parsing: startText), let end = MetricKitMeasurement(parsing: endText), start.unit == end.unit else {
                throw MetricKitConversionError(path: bucket.path, message: "bucket bounds \"\(startText)\"-\"\(endText)\" are not measurements of one unit")
            }
            if let unit, unit != start.unit { throw MetricKitConversionError(path: bucket.path, message: "bucket unit differs from the other buckets") }
            unit = start.unit
            indexed.append((Int(index) ?? Int.max, .init(start: start.value, end: end.value, count: Int(count))))
        }
        guard let unit else { return MetricKitHistogram(buckets: [], unit: .seconds) }
        return MetricKitHistogram(buckets: indexed.sorted { ($0.0, $0.1.start) < ($1.0, $1.1.start) }.map(\.1), unit: unit)
    }

    /// `lowerCamelCase` → `snake_case`, for keys passed through.
    static func snakeCase(_ key: String) -> String {
        var out = ""
        for (index, character) in key.enumerated() {
            if character.isUppercase {
                if index > 0 { out += "_" }
                out += character.lowercased()
            } else {
                out.append(character)
            }
        }
        return out
    }
}
