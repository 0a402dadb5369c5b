/// Reads OTLP/JSON requests (one JSON object per request) into the model.
///
/// Accepts what the OTLP JSON encoding allows a reader to accept: lowerCamelCase or the original
/// snake_case field names, integers as strings or numbers (in exponent form too, `1e3`, when the value is an
/// exact integer in the field's range; read exactly, never through a `Double`), enums as integers or names,
/// hex IDs, base64 bytes, `"NaN"`/`"Infinity"`/`"-Infinity"` doubles. Unknown fields are ignored.
public struct OTLPJSONDecoder: Sendable {
    /// The limits every request is checked against while it is read.
    package var options: OTLPDecodingOptions

    /// A decoder that checks requests against `options` (default: the readers' default limits).
    public init(options: OTLPDecodingOptions = .default) {
        self.options = options
    }

    /// Decodes one traces request from JSON text (UTF-8 bytes: an array, `Data`, a slice, a buffer).
    public func decodeTraces(_ json: some Collection<UInt8>) throws(OTLPReadError) -> OTLPTracesData {
        try ByteCollection.withBytes(json) { (buffer) throws(OTLPReadError) in try decodeRequest(buffer) }
    }

    /// Decodes one logs request from JSON text (UTF-8 bytes: an array, `Data`, a slice, a buffer).
    public func decodeLogs(_ json: some Collection<UInt8>) throws(OTLPReadError) -> OTLPLogsData {
        try ByteCollection.withBytes(json) { (buffer) throws(OTLPReadError) in try decodeRequest(buffer) }
    }

    /// Decodes one metrics request from JSON text (UTF-8 bytes: an array, `Data`, a slice, a buffer).
    public func decodeMetrics(_ json: some Collection<UInt8>) throws(OTLPReadError) -> OTLPMetricsData {
        try ByteCollection.withBytes(json) { (buffer) throws(OTLPReadError) in try decodeRequest(buffer) }
    }

    /// Decodes one traces request from JSON text in memory.
    package func decodeTraces(_ json: UnsafeRawBufferPointer) throws(OTLPReadError) -> OTLPTracesData {
        try decodeRequest(json)
    }

    /// Decodes one logs request from JSON text in memory.
    package func decodeLogs(_ json: UnsafeRawBufferPointer) throws(OTLPReadError) -> OTLPLogsData {
        try decodeRequest(json)
    }

    /// Decodes one metrics request from JSON text in memory.
    package func decodeMetrics(_ json: UnsafeRawBufferPointer) throws(OTLPReadError) -> OTLPMetricsData {
        try decodeRequest(json)
    }

    /// A request of any kind: the envelope is read once for all, each item by its type (``JSONItem``).
    @_specialize(where Item == OTLPSpan)
    @_specialize(where Item == OTLPLogRecord)
    @_specialize(where Item == OTLPMetric)
    func decodeRequest<Item: JSONItem>(_ json: UnsafeRawBufferPointer) throws(OTLPReadError) -> OTLPSignalData<Item> {
        let (root, budget) = try parse(json)
        let request = try JSONObject(root, path: "$", budget: budget)
        try Self.requireSignal(Item.requestKind, of: request)
        let members = Item.jsonMembers
        // The lowerCamelCase names as Strings, once per request rather than once per group.
        let (resourceGroupsKey, scopeGroupsKey, itemsKey) = ("\(members.resourceGroups)", "\(members.scopeGroups)", "\(members.items)")
        return OTLPSignalData(
            resourceGroups: try request.array(resourceGroupsKey, members.resourceGroupsSnakeCase) { (object) throws(OTLPReadError) in
                OTLPResourceGroup(
                    resource: try object.optionalObject("resource").map(resource),
                    scopeGroups: try object.array(scopeGroupsKey, members.scopeGroupsSnakeCase) { (scopeObject) throws(OTLPReadError) in
                        OTLPScopeGroup(
                            scope: try scopeObject.optionalObject("scope").map(scope),
                            items: try scopeObject.array(itemsKey, members.itemsSnakeCase) { (itemObject) throws(OTLPReadError) in
                                try Item.readJSON(itemObject, with: self)
                            },
                            schemaURL: try scopeObject.string("schemaUrl", "schema_url"))
                    },
                    schemaURL: try object.string("schemaUrl", "schema_url"))
            })
    }

    /// Which signal a JSON request is, from its top-level key; `nil` for `{}`, a request of another
    /// signal (metrics, profiles), or anything else.
    package func detectSignal(_ json: some Collection<UInt8>) -> OTLPSignal? {
        ByteCollection.withBytes(json) { buffer in detectSignal(buffer) }
    }

    /// ``detectSignal(_:)`` on JSON text in memory.
    package func detectSignal(_ json: UnsafeRawBufferPointer) -> OTLPSignal? {
        if case .decisive(let signal) = signalEvidence(json) { return signal }
        return nil
    }

    /// The top-level keys of the four OTLP requests, camelCase and snake_case.
    private static let signalKeys: [(signal: String, keys: [String])] = [
        ("traces", ["resourceSpans", "resource_spans"]), ("logs", ["resourceLogs", "resource_logs"]),
        ("metrics", ["resourceMetrics", "resource_metrics"]), ("profiles", ["resourceProfiles", "resource_profiles"]),
    ]

    /// The signals a request object names by its top-level keys, in key order, with the key naming each. A null
    /// member names nothing (null counts as absent), and neither does an empty `resourceSpans` or `resourceLogs`:
    /// like a zero-length protobuf record, it is an empty request of either signal. An empty metrics or profiles
    /// array counts.
    private static func namedSignals(_ members: [(String, JSONValue)]) -> [(signal: String, key: String)] {
        var named: [(signal: String, key: String)] = []
        for (key, value) in members {
            guard let entry = signalKeys.first(where: { $0.keys.contains(key) }) else { continue }
            if value == .null || ((entry.signal == "traces" || entry.signal == "logs") && value == .array([])) { continue }
            if !named.contains(where: { $0.signal == entry.signal }) { named.append((entry.signal, key)) }
        }
        return named
    }

    /// Throws unless `request` is a request of `signal` (or names no signal, an empty request): a request of
    /// another signal is `wrong_kind`, profiles `unsupported_signal`, two signals in one object
    /// `malformed_json`. Without this, the other signal's key would be skipped as unknown and its data lost.
    private static func requireSignal(_ signal: OTLPRequestKind, of request: JSONObject) throws(OTLPReadError) {
        let named = namedSignals(request.members)
        if let foreign = named.first(where: { $0.signal == "profiles" }) {
            throw OTLPReadError(
                .unsupportedSignal, "an OTLP \(foreign.signal) request (\(foreign.key)): profiles are not read", byteOffset: 0,
                offsetIn: .record)
        }
        if named.count > 1 {
            throw OTLPReadError(
                .malformedJSON, "one request holds both \(named[0].key) and \(named[1].key)", byteOffset: 0, offsetIn: .record)
        }
        if let other = named.first, other.signal != "\(signal)" {
            throw OTLPReadError(
                .wrongKind, "this is a \(other.signal) request (\(other.key)), not \(signal)", byteOffset: 0, offsetIn: .record)
        }
    }

    /// What a JSON request says about its signal (see ``OTLPSignalEvidence``): its top-level key decides.
    func signalEvidence(_ json: UnsafeRawBufferPointer) -> OTLPSignalEvidence {
        guard let (root, _) = try? parse(json), case .object(let members) = root else { return .invalid(likelier: .traces) }
        let named = Self.namedSignals(members)
        if let foreign = named.first(where: { $0.signal == "profiles" }) {
            return .unsupported(
                kind: foreign.signal, message: "an OTLP \(foreign.signal) request (\(foreign.key)): only traces, logs and metrics are read")
        }
        guard named.count == 1, let signal = OTLPSignal(rawValue: named[0].signal) else {
            // Two signals: decoding reports it. None: an empty request either way (unknown keys are skipped).
            return named.isEmpty ? .silent(isEmpty: true) : .invalid(likelier: .traces)
        }
        return .decisive(signal)
    }

    /// The JSON tree, and the memory budget left for the model (``OTLPDecodingOptions/maxDecodedBytes``
    /// covers both).
    private func parse(_ json: UnsafeRawBufferPointer) throws(OTLPReadError) -> (JSONValue, JSONDecodingBudget) {
        try options.validate()
        do {
            // Each message level takes up to three JSON levels (kvlistValue -> values -> [ ] -> { }).
            let depth = min(max(options.maxNestingDepth, 0), OTLPDecodingOptions.maxNestingDepthRange.upperBound)
            var treeBytes = 0
            let root = try JSONParser.parse(
                json.bindMemory(to: UInt8.self), maxDepth: depth * 3 + 8, maxTreeBytes: options.maxDecodedBytes, treeBytes: &treeBytes)
            return (root, JSONDecodingBudget(used: treeBytes, limit: options.maxDecodedBytes))
        } catch {
            switch error.kind {
            case .nestingTooDeep: throw OTLPReadError(.nestingTooDeep, error.message, byteOffset: error.offset, offsetIn: .record)
            case .treeTooLarge:
                throw OTLPReadError(.recordTooLarge, error.message + " (maxDecodedBytes)", byteOffset: error.offset, offsetIn: .record)
            case .unexpectedEnd, .unexpectedToken, .invalidNumber, .invalidString, .invalidEscape:
                throw OTLPReadError(.malformedJSON, error.message, byteOffset: error.offset, offsetIn: .record)
            }
        }
    }

    // MARK: - Messages

    /// Key/values whose `KeyValue` messages sit at message level `level` (the request is level 0); their
    /// values are one level deeper. Nesting is limited as in protobuf (`options.maxNestingDepth`).
    func attributes(_ object: JSONObject, _ key: String, level: Int, item: String? = nil) throws(OTLPReadError) -> [OTLPAttribute] {
        if let item, let (path, count) = object.arrayCount(key, key), count > options.maxAttributesPerItem {
            throw OTLPReadError(
                .tooManyAttributes, "\(path): \(OTLPReadError.withArticle(item)) has more than \(options.maxAttributesPerItem) attributes")
        }
        return try object.array(key, key) { (kv) throws(OTLPReadError) in
            try checkLevel(level, kv.path)
            return OTLPAttribute(
                try kv.string("key", "key"),
                try kv.optionalObject("value").map { (value) throws(OTLPReadError) in try anyValue(value, level: level + 1) })
        }
    }

    func checkLevel(_ level: Int, _ path: String) throws(OTLPReadError) {
        if level > options.maxNestingDepth {
            throw OTLPReadError(.nestingTooDeep, "\(path): message nesting deeper than \(options.maxNestingDepth) levels")
        }
    }

    private func anyValue(_ object: JSONObject, level: Int) throws(OTLPReadError) -> OTLPAttributeValue {
        try checkLevel(level, object.path)
        var result = OTLPAttributeValue.empty
        var member: String?
        for (key, value) in object.members where Self.anyValueMembers.contains(key) {
            guard try object.claimOneofMember(key, value, &member, oneof: "an AnyValue") else { continue }
            let path = object.path + "." + key
            switch key {
            case "stringValue", "string_value": result = .string(try JSONObject.string(value, path))
            case "boolValue", "bool_value":
                guard case .bool(let bool) = value else { throw JSONObject.typeError(path, "a boolean") }
                result = .bool(bool)
            case "intValue", "int_value": result = .int(try JSONObject.int64(value, path))
            case "doubleValue", "double_value": result = .double(try JSONObject.double(value, path))
            case "bytesValue", "bytes_value":
                guard let bytes = Base64.decode(try JSONObject.string(value, path)) else { throw JSONObject.typeError(path, "base64") }
                try object.budget.charge(32 + bytes.count, path)
                result = .bytes(bytes)
            case "arrayValue", "array_value":
                let array = try JSONObject(value, path: path, budget: object.budget)
                try checkLevel(level + 1, path)
                result = .array(
                    try array.array("values", "values") { (element) throws(OTLPReadError) in try anyValue(element, level: level + 2) })
            case "kvlistValue", "kvlist_value":
                let list = try JSONObject(value, path: path, budget: object.budget)
                try checkLevel(level + 1, path)
                result = .keyValueList(try attributes(list, "values", level: level + 2))
            case "stringValueStrindex", "string_value_strindex":
                result = .empty  // profiles-only; other signals read it as absent
            default: continue
            }
        }
        return result
    }

    /// The members of AnyValue's `value` oneof, in both spellings.
    private static let anyValueMembers: Set<String> = [
        "stringValue", "string_value", "boolValue", "bool_value", "intValue", "int_value", "doubleValue", "double_value",
        "bytesValue", "bytes_value", "arrayValue", "array_value", "kvlistValue", "kvlist_value", "stringValueStrindex",
        "string_value_strindex",
    ]

    private func resource(_ object: JSONObject) throws(OTLPReadError) -> OTLPResource {
        OTLPResource(
            attributes: try attributes(object, "attributes", level: 3, item: "resource"),
            droppedAttributesCount: try object.uint32("droppedAttributesCount", "dropped_attributes_count"),
            entityRefs: try object.array("entityRefs", "entity_refs") { (ref) throws(OTLPReadError) in
                OTLPEntityRef(
                    schemaURL: try ref.string("schemaUrl", "schema_url"), type: try ref.string("type", "type"),
                    idKeys: try ref.stringArray("idKeys", "id_keys"),
                    descriptionKeys: try ref.stringArray("descriptionKeys", "description_keys"))
            })
    }

    private func scope(_ object: JSONObject) throws(OTLPReadError) -> OTLPInstrumentationScope {
        OTLPInstrumentationScope(
            name: try object.string("name", "name"), version: try object.string("version", "version"),
            attributes: try attributes(object, "attributes", level: 4, item: "instrumentation scope"),
            droppedAttributesCount: try object.uint32("droppedAttributesCount", "dropped_attributes_count"))
    }

    func span(_ object: JSONObject) throws(OTLPReadError) -> OTLPSpan {
        OTLPSpan(
            traceID: try object.traceID("traceId", "trace_id"),
            spanID: try object.spanID("spanId", "span_id"),
            parentSpanID: try object.spanID("parentSpanId", "parent_span_id"),
            name: try object.string("name", "name"),
            kind: OTLPSpanKind(rawValue: try object.enumValue("kind", "kind", names: Self.spanKindNames)),
            startTimeUnixNano: try object.uint64("startTimeUnixNano", "start_time_unix_nano"),
            endTimeUnixNano: try object.uint64("endTimeUnixNano", "end_time_unix_nano"),
            attributes: try attributes(object, "attributes", level: 4, item: "span"),
            events: try object.array("events", "events") { (event) throws(OTLPReadError) in
                OTLPSpanEvent(
                    name: try event.string("name", "name"), timeUnixNano: try event.uint64("timeUnixNano", "time_unix_nano"),
                    attributes: try attributes(event, "attributes", level: 5, item: "span event"),
                    droppedAttributesCount: try event.uint32("droppedAttributesCount", "dropped_attributes_count"))
            },
            links: try object.array("links", "links") { (link) throws(OTLPReadError) in
                OTLPSpanLink(
                    traceID: try link.traceID("traceId", "trace_id"), spanID: try link.spanID("spanId", "span_id"),
                    traceState: try link.string("traceState", "trace_state"),
                    attributes: try attributes(link, "attributes", level: 5, item: "span link"),
                    droppedAttributesCount: try link.uint32("droppedAttributesCount", "dropped_attributes_count"),
                    flags: try link.uint32("flags", "flags"))
            },
            status: try object.optionalObject("status").map { (status) throws(OTLPReadError) in
                OTLPSpanStatus(
                    code: .init(rawValue: try status.enumValue("code", "code", names: Self.statusCodeNames)),
                    message: try status.string("message", "message"))
            },
            traceState: try object.string("traceState", "trace_state"),
            flags: try object.uint32("flags", "flags"),
            droppedAttributesCount: try object.uint32("droppedAttributesCount", "dropped_attributes_count"),
            droppedEventsCount: try object.uint32("droppedEventsCount", "dropped_events_count"),
            droppedLinksCount: try object.uint32("droppedLinksCount", "dropped_links_count"))
    }

    func logRecord(_ object: JSONObject) throws(OTLPReadError) -> OTLPLogRecord {
        OTLPLogRecord(
            timeUnixNano: try object.uint64("timeUnixNano", "time_unix_nano"),
            observedTimeUnixNano: try object.uint64("observedTimeUnixNano", "observed_time_unix_nano"),
            severity: OTLPSeverity(rawValue: try object.enumValue("severityNumber", "severity_number", names: Self.severityNames)),
            severityText: try object.string("severityText", "severity_text"),
            body: try object.optionalObject("body").map { (body) throws(OTLPReadError) in try anyValue(body, level: 4) },
            attributes: try attributes(object, "attributes", level: 4, item: "log record"),
            traceID: try object.traceID("traceId", "trace_id"),
            spanID: try object.spanID("spanId", "span_id"),
            flags: try object.uint32("flags", "flags"),
            eventName: try object.string("eventName", "event_name"),
            droppedAttributesCount: try object.uint32("droppedAttributesCount", "dropped_attributes_count"))
    }

    static let spanKindNames =
        [
            "SPAN_KIND_UNSPECIFIED": 0, "SPAN_KIND_INTERNAL": 1, "SPAN_KIND_SERVER": 2, "SPAN_KIND_CLIENT": 3,
            "SPAN_KIND_PRODUCER": 4, "SPAN_KIND_CONSUMER": 5,
        ] as [String: Int32]
    static let statusCodeNames = ["STATUS_CODE_UNSET": 0, "STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2] as [String: Int32]
    static let severityNames: [String: Int32] = {
        var names: [String: Int32] = ["SEVERITY_NUMBER_UNSPECIFIED": 0]
        for number in Int32(1)...24 { names["SEVERITY_NUMBER_" + OTLPSeverity(rawValue: number).description] = number }
        return names
    }()
}

/// A JSON object being read as a message, with its path for error messages.
struct JSONObject {
    let members: [(String, JSONValue)]
    let path: String
    /// The decode's memory budget, shared by every object of one request.
    let budget: JSONDecodingBudget

    init(_ value: JSONValue, path: String, budget: JSONDecodingBudget) throws(OTLPReadError) {
        guard case .object(let members) = value else { throw JSONObject.typeError(path, "an object") }
        // A key given twice would keep only one of its values (data lost without a word); the reference
        // decoder refuses such a message too.
        if let duplicate = Self.duplicateKey(members) {
            var quoted: [UInt8] = []
            JSONOutput.appendQuoted(duplicate, to: &quoted)
            throw OTLPReadError(.malformedJSON, "\(path): the key \(String(decoding: quoted, as: UTF8.self)) occurs more than once")
        }
        self.members = members
        self.path = path
        self.budget = budget
    }

    /// The first key that occurs twice in `members`, if any.
    private static func duplicateKey(_ members: [(String, JSONValue)]) -> String? {
        guard members.count > 1 else { return nil }
        if members.count <= 16 {
            for index in 1..<members.count where members[..<index].contains(where: { $0.0 == members[index].0 }) {
                return members[index].0
            }
            return nil
        }
        var seen = Set<String>(minimumCapacity: members.count)
        for (key, _) in members where !seen.insert(key).inserted { return key }
        return nil
    }

    /// Takes `key` as the member of a oneof named `oneof`, refusing a second one (`seen` holds the first): as with
    /// a key given twice, only one of the values would be kept, and the reference decoder refuses such a message
    /// too. A member whose value is null counts as absent and is not claimed.
    func claimOneofMember(_ key: String, _ value: JSONValue, _ seen: inout String?, oneof: String) throws(OTLPReadError) -> Bool {
        if case .null = value { return false }
        if let first = seen {
            throw OTLPReadError(.malformedJSON, "\(path): \(first) and \(key) are both set, and \(oneof) holds one value")
        }
        seen = key
        return true
    }

    static func typeError(_ path: String, _ expected: String) -> OTLPReadError {
        OTLPReadError(.malformedJSON, "\(path) is not \(expected)")
    }

    /// The last member named `camel` or `snake` (null counts as absent).
    func member(_ camel: String, _ snake: String) -> (String, JSONValue)? {
        for (key, value) in members.reversed() where key == camel || key == snake {
            if case .null = value { return nil }
            return (path + "." + key, value)
        }
        return nil
    }

    func optionalObject(_ key: String) throws(OTLPReadError) -> JSONObject? {
        guard let (path, value) = member(key, key) else { return nil }
        return try JSONObject(value, path: path, budget: budget)
    }

    func array<T>(_ camel: String, _ snake: String, _ transform: (JSONObject) throws(OTLPReadError) -> T) throws(OTLPReadError) -> [T] {
        guard let (path, value) = member(camel, snake) else { return [] }
        guard case .array(let elements) = value else { throw JSONObject.typeError(path, "an array") }
        if !elements.isEmpty { try budget.charge(32 + elements.count * MemoryLayout<T>.stride, path) }
        var out: [T] = []
        out.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            out.append(try transform(try JSONObject(element, path: "\(path)[\(index)]", budget: budget)))
        }
        return out
    }

    /// The path and element count of the array member named `camel` or `snake`; `nil` when absent or not an array.
    func arrayCount(_ camel: String, _ snake: String) -> (String, Int)? {
        guard let (path, value) = member(camel, snake), case .array(let elements) = value else { return nil }
        return (path, elements.count)
    }

    func stringArray(_ camel: String, _ snake: String) throws(OTLPReadError) -> [String] {
        guard let (path, value) = member(camel, snake) else { return [] }
        guard case .array(let elements) = value else { throw JSONObject.typeError(path, "an array") }
        if !elements.isEmpty { try budget.charge(32 + elements.count * MemoryLayout<String>.stride, path) }
        var out: [String] = []
        for element in elements { out.append(try JSONObject.string(element, path)) }
        return out
    }

    func string(_ camel: String, _ snake: String) throws(OTLPReadError) -> String {
        guard let (path, value) = member(camel, snake) else { return "" }
        return try JSONObject.string(value, path)
    }

    static func string(_ value: JSONValue, _ path: String) throws(OTLPReadError) -> String {
        guard case .string(let string) = value else { throw typeError(path, "a string") }
        return string
    }

    /// An integer field, exactly: a JSON number or a quoted one, in decimal or exponent form (`1e3`,
    /// `"1.5e1"`) as the proto3 JSON mapping allows, as long as the value is an integer `T` can hold.
    /// Anything else is `malformed_json` naming the field; no value goes through a `Double`.
    static func integer<T: FixedWidthInteger>(_ value: JSONValue, _ path: String, _ typeName: String) throws(OTLPReadError) -> T {
        let text: String
        let quoted: Bool
        switch value {
        case .number(let number): (text, quoted) = (number, false)
        case .string(let string): (text, quoted) = (string, true)
        default: throw typeError(path, typeName)
        }
        do {
            return try JSONNumber(text, quoted: quoted).integer(as: T.self)
        } catch {
            throw numberError(path, text, error, typeName)
        }
    }

    /// `$.path: "1.5" is not an integer` and the like; long texts are shortened.
    static func numberError(_ path: String, _ text: String, _ failure: JSONNumber.Failure, _ typeName: String) -> OTLPReadError {
        let shown = text.utf8.count <= 40 ? text : String(decoding: text.utf8.prefix(40), as: UTF8.self) + "…"
        let problem =
            switch failure {
            case .notANumber: "is not \(typeName)"
            case .notAnInteger: "is not an integer (\(typeName) expected)"
            case .outOfRange: "is out of range for \(typeName)"
            }
        // Quoted as JSON (control characters escaped): the text comes from the input and is printed on terminals.
        var quotedText: [UInt8] = []
        JSONOutput.appendQuoted(shown, to: &quotedText)
        return OTLPReadError(.malformedJSON, "\(path): \(String(decoding: quotedText, as: UTF8.self)) \(problem)")
    }

    static func int64(_ value: JSONValue, _ path: String) throws(OTLPReadError) -> Int64 {
        try integer(value, path, "a signed 64-bit integer")
    }

    func uint64(_ camel: String, _ snake: String) throws(OTLPReadError) -> UInt64 {
        guard let (path, value) = member(camel, snake) else { return 0 }
        return try JSONObject.integer(value, path, "an unsigned 64-bit integer")
    }

    func uint32(_ camel: String, _ snake: String) throws(OTLPReadError) -> UInt32 {
        guard let (path, value) = member(camel, snake) else { return 0 }
        return try JSONObject.integer(value, path, "an unsigned 32-bit integer")
    }

    func enumValue(_ camel: String, _ snake: String, names: [String: Int32]) throws(OTLPReadError) -> Int32 {
        guard let (path, value) = member(camel, snake) else { return 0 }
        if case .string(let name) = value, let number = names[name] { return number }
        return try JSONObject.integer(value, path, "an enum value (a name or a 32-bit integer)")
    }

    /// A double: a JSON number, a quoted one, or `"NaN"`, `"Infinity"`, `"-Infinity"`. A number too
    /// large for a `Double` (`1e400`) is `malformed_json`, not infinity; one too small is zero.
    static func double(_ value: JSONValue, _ path: String) throws(OTLPReadError) -> Double {
        let text: String
        let quoted: Bool
        switch value {
        case .number(let number): (text, quoted) = (number, false)
        case .string("NaN"): return .nan
        case .string("Infinity"): return .infinity
        case .string("-Infinity"): return -.infinity
        case .string(let string): (text, quoted) = (string, true)
        default: throw typeError(path, "a number")
        }
        do {
            return try JSONNumber.double(text, quoted: quoted)
        } catch {
            throw numberError(path, text, error, "a double")
        }
    }

    func traceID(_ camel: String, _ snake: String) throws(OTLPReadError) -> OTLPTraceID? {
        guard let (path, value) = member(camel, snake) else { return nil }
        let text = try JSONObject.string(value, path)
        if text.isEmpty { return nil }
        guard let id = OTLPTraceID(hex: text) else { throw JSONObject.typeError(path, "a trace ID of 32 hex digits") }
        return id
    }

    func spanID(_ camel: String, _ snake: String) throws(OTLPReadError) -> OTLPSpanID? {
        guard let (path, value) = member(camel, snake) else { return nil }
        let text = try JSONObject.string(value, path)
        if text.isEmpty { return nil }
        guard let id = OTLPSpanID(hex: text) else { throw JSONObject.typeError(path, "a span ID of 16 hex digits") }
        return id
    }
}
