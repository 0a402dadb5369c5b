internal import OTLPWire

/// A JSON object of a payload being read, with its path for messages. Every key is optional and parsing is
/// tolerant: a value of the wrong type (in a known or an unknown key) is skipped and noted in `notes`,
/// never an error. Only what makes the payload impossible to convert throws: bytes that are not JSON, JSON
/// nested deeper than the limit, a document that is not an object, numbers whose arithmetic overflows.
struct MetricKitJSON {
    let members: [(String, JSONValue)]
    let notes: MetricKitConversionNotes
    /// Makes the path when a message needs it: deep call-stack frames would cost O(depth) each otherwise.
    private let makePath: () -> String

    /// JSON path of this object (`$.crashDiagnostics[0]`).
    var path: String { makePath() }

    init(members: [(String, JSONValue)], path: String, notes: MetricKitConversionNotes) {
        self.init(members: members, lazyPath: { path }, notes: notes)
    }

    init(members: [(String, JSONValue)], lazyPath: @escaping () -> String, notes: MetricKitConversionNotes) {
        self.members = members
        self.makePath = lazyPath
        self.notes = notes
        // Large objects (a hostile metaData or histogram of 100,000 keys) are looked up through an index, so
        // reading every key stays linear; small ones (frames, buckets) are searched.
        if members.count > Self.indexedMemberCount {
            var index: [String: Int] = [:]
            for (position, member) in members.enumerated() { index[member.0] = position }  // the last one wins
            self.index = index
        } else {
            index = nil
        }
    }

    /// Member count above which an object gets an index.
    private static let indexedMemberCount = 16
    /// Each key's last position, for large objects.
    private let index: [String: Int]?

    /// The payload document: a JSON object at most `maxDepth` levels deep.
    static func parse(_ bytes: [UInt8], maxDepth: Int, notes: MetricKitConversionNotes) throws(MetricKitConversionError) -> MetricKitJSON {
        let value: JSONValue
        do {
            value = try bytes.withUnsafeBufferPointer { buffer in
                Result { () throws(MetricKitJSONParser.Failure) in try MetricKitJSONParser.parse(buffer, maxDepth: maxDepth) }
            }.get()
        } catch {
            let limit = error.isTooDeep ? " (the payload nesting limit: maxPayloadNestingDepth, --max-payload-nesting-depth)" : ""
            throw MetricKitConversionError(path: "$", message: "not valid JSON at byte \(error.offset): \(error.message)\(limit)")
        }
        guard case .object(let members) = value else { throw MetricKitConversionError(path: "$", message: "not a JSON object") }
        return MetricKitJSON(members: members, path: "$", notes: notes)
    }

    /// The keys, each once (where it first appears), in document order.
    var keys: [String] {
        var seen = Set<String>()
        return members.compactMap { seen.insert($0.0).inserted ? $0.0 : nil }
    }

    /// The value of `key` (the last one when repeated); `nil` when absent or `null`.
    func value(_ key: String) -> JSONValue? {
        let found: JSONValue?
        if let index {
            found = index[key].map { members[$0].1 }
        } else {
            found = members.last(where: { $0.0 == key })?.1
        }
        guard let found, found != .null else { return nil }
        return found
    }

    func childPath(_ key: String) -> String { "\(path).\(key)" }

    /// Notes `key` as skipped (`reason`: what was expected) and returns `nil`.
    func skip<T>(_ key: String, _ reason: String) -> T? {
        notes.skip(childPath(key), "\(reason), skipped")
        return nil
    }

    /// An object element of an array at `path`; anything else is noted as skipped.
    static func element(_ value: JSONValue, path: String, notes: MetricKitConversionNotes) -> MetricKitJSON? {
        guard case .object(let members) = value else {
            if value != .null { notes.skip(path, "expected an object, skipped") }
            return nil
        }
        return MetricKitJSON(members: members, path: path, notes: notes)
    }

    func object(_ key: String) -> MetricKitJSON? {
        guard let value = value(key) else { return nil }
        return Self.element(value, path: childPath(key), notes: notes)
    }

    func array(_ key: String) -> [JSONValue]? {
        guard let value = value(key) else { return nil }
        guard case .array(let elements) = value else { return skip(key, "expected an array") }
        return elements
    }

    /// A string; numbers and booleans are taken as their text.
    func string(_ key: String) -> String? {
        switch value(key) {
        case nil: return nil
        case .string(let text)?, .number(let text)?: return text
        case .bool(let bool)?: return bool ? "true" : "false"
        default: return skip(key, "expected a string")
        }
    }

    /// An integer in the 64-bit range, written as a number or a string (`12`, `"12"`, `12.0`, `1.2e1`).
    func integer(_ key: String) -> Int64? {
        switch value(key) {
        case nil: return nil
        case .number(let text)?, .string(let text)?:
            if let int = Self.int64(text) { return int }
        default: break
        }
        return skip(key, "expected an integer in the 64-bit range")
    }

    /// `text` as an exact 64-bit integer: integer digits, or a finite integral double that fits.
    static func int64(_ text: String) -> Int64? {
        if let int = Int64(text) { return int }
        guard let double = Double(text), double.isFinite else { return nil }
        return Int64(exactly: double)
    }

    /// A finite number, written as a number or a string.
    func double(_ key: String) -> Double? {
        switch value(key) {
        case nil: return nil
        case .number(let text)?, .string(let text)?:
            if let double = Double(text), double.isFinite { return double }
        default: break
        }
        return skip(key, "expected a finite number")
    }

    /// Booleans may arrive as `true`/`false`, as `"1"`/`"0"` (NSNumber descriptions) or `"true"`/`"false"`.
    func bool(_ key: String) -> Bool? {
        switch value(key) {
        case nil: return nil
        case .bool(let bool)?: return bool
        case .string("1")?, .number("1")?, .string("true")?: return true
        case .string("0")?, .number("0")?, .string("false")?: return false
        default: return skip(key, "expected a boolean")
        }
    }

    /// A measurement string; `.unparsed` keeps the raw text when the number or unit is not understood.
    enum Measured { case value(MetricKitMeasurement), unparsed(String) }

    /// A measurement (`"12 sec"`). A bare number or boolean is kept as `.unparsed` text; an object or array
    /// is skipped. A value beyond the range of `Double` is an error: its arithmetic cannot be done.
    func measurement(_ key: String) throws(MetricKitConversionError) -> Measured? {
        let text: String
        switch value(key) {
        case nil: return nil
        case .string(let string)?: text = string
        case .number(let number)?: return .unparsed(number)
        case .bool(let bool)?: return .unparsed(bool ? "true" : "false")
        default: return skip(key, "expected a measurement string such as \"12 sec\"")
        }
        switch MetricKitMeasurement.parse(text) {
        case .value(let measurement): return .value(measurement)
        case .notUnderstood: return .unparsed(text)
        case .outOfRange: throw MetricKitConversionError(path: childPath(key), message: "\"\(text)\" is beyond the range of a 64-bit float")
        }
    }

    /// A histogram (`histogramValue` buckets sorted by index; `{}` buckets skipped). A bucket without a
    /// usable count or bounds is skipped; bounds of differing units or a negative count make the whole
    /// histogram unusable (skipped, noted). A total count past `Int.max` is an error (checked arithmetic).
    func histogram(_ key: String) throws(MetricKitConversionError) -> MetricKitHistogram? {
        guard let histogram = object(key), let values = histogram.object("histogramValue") else { return nil }
        var indexed: [(Int, MetricKitHistogram.Bucket)] = []
        var unit: MetricKitMeasurement.BaseUnit?
        for index in values.keys {
            guard let bucket = values.object(index), !bucket.members.isEmpty else { continue }
            guard let count = bucket.integer("bucketCount"), let startText = bucket.string("bucketStart"),
                let endText = bucket.string("bucketEnd")
            else {
                notes.skip(bucket.path, "a bucket needs bucketCount, bucketStart and bucketEnd, skipped")
                continue
            }
            guard count >= 0 else { return skip(key, "bucket \(index) has a negative count (\(count)): the histogram") }
            let start: MetricKitMeasurement, end: MetricKitMeasurement
            switch (MetricKitMeasurement.parse(startText), MetricKitMeasurement.parse(endText)) {
            case (.value(let first), .value(let last)) where first.unit == last.unit:
                start = first
                end = last
            case (.outOfRange, _), (_, .outOfRange):
                throw MetricKitConversionError(
                    path: bucket.path, message: "bucket bounds \"\(startText)\"-\"\(endText)\" are beyond the range of a 64-bit float")
            default:
                return skip(key, "bucket \(index) bounds \"\(startText)\"-\"\(endText)\" are not measurements of one unit: the histogram")
            }
            if let unit, unit != start.unit {
                return skip(key, "bucket \(index) has a unit that differs from the other buckets: the histogram")
            }
            unit = start.unit
            guard let bucketCount = Int(exactly: count) else {
                throw MetricKitConversionError(path: bucket.childPath("bucketCount"), message: "\(count) does not fit this platform's Int")
            }
            indexed.append((Int(index) ?? Int.max, .init(start: start.value, end: end.value, count: bucketCount)))
        }
        guard let unit else { return MetricKitHistogram(buckets: [], unit: .seconds) }
        let result = MetricKitHistogram(buckets: indexed.sorted { ($0.0, $0.1.start) < ($1.0, $1.1.start) }.map(\.1), unit: unit)
        guard result.totalCount != nil else {
            throw MetricKitConversionError(path: childPath(key), message: "the bucket counts add up to more than \(Int.max)")
        }
        return result
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
