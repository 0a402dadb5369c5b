import OTLPWire

/// libFuzzer entry: the input drives a generator of random traces and logs models (every AnyValue kind,
/// containers nested up to 40 levels, empty and odd strings, extreme numbers), which are encoded to protobuf and to
/// OTLP JSON and decoded back. Under AddressSanitizer this proves the encoder's output-size bound (protobuf-c
/// packs without bounds checks); the round trips must give the same bytes again, or the fuzzer stops.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRoundTrip(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var input = FuzzInput(UnsafeBufferPointer(start: start, count: count))
    // The deepest nesting readers allow (128): the generator stays within it (see FuzzInput.maxContainerLevels).
    let decoding = OTLPDecodingOptions(maxRecordBytes: 64 << 20, maxNestingDepth: 128)
    let encoder = OTLPEncoder()
    if input.bool() {
        let data = input.traces()
        let bytes = encoder.encode(data)
        let decoded: OTLPTracesData
        do {
            decoded = try bytes.withUnsafeBytes { try OTLPDecoder(options: decoding).decodeTraces($0) }
        } catch {
            fatalError("encoded traces do not decode (\(bytes.count) bytes): \(error)")
        }
        guard encoder.encode(decoded) == bytes else { fatalError("traces protobuf round trip differs") }
        let json = OTLPJSONEncoder().encode(data)
        let fromJSON = json.withUnsafeBytes { try? OTLPJSONDecoder(options: decoding).decodeTraces($0) }
        guard let fromJSON, encoder.encode(fromJSON) == bytes else { fatalError("traces JSON round trip differs") }
    } else {
        let data = input.logs()
        let bytes = encoder.encode(data)
        let decoded: OTLPLogsData
        do {
            decoded = try bytes.withUnsafeBytes { try OTLPDecoder(options: decoding).decodeLogs($0) }
        } catch {
            fatalError("encoded logs do not decode (\(bytes.count) bytes): \(error)")
        }
        guard encoder.encode(decoded) == bytes else { fatalError("logs protobuf round trip differs") }
        let json = OTLPJSONEncoder().encode(data)
        let fromJSON = json.withUnsafeBytes { try? OTLPJSONDecoder(options: decoding).decodeLogs($0) }
        guard let fromJSON, encoder.encode(fromJSON) == bytes else { fatalError("logs JSON round trip differs") }
    }
    return 0
}

/// Takes values from the fuzzer's bytes; past the end every value is zero.
struct FuzzInput {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    mutating func u64() -> UInt64 {
        // Small values, the extremes and everything between, all reachable.
        switch byte() % 4 {
        case 0: return UInt64(byte())
        case 1: return [0, 1, UInt64.max, UInt64(Int64.max), UInt64(Int64.max) + 1][Int(byte() % 5)]
        default: return (0..<8).reduce(0) { value, _ in value << 8 | UInt64(byte()) }
        }
    }

    mutating func u32() -> UInt32 { UInt32(truncatingIfNeeded: u64()) }
    mutating func count(_ limit: UInt8) -> Int { Int(byte() % limit) }

    mutating func string() -> String {
        switch byte() % 4 {
        case 0: return ""
        case 1: return ["é", "日本語", "\u{0}", "\"\\\n", "🙂", "\u{7F}\u{FFFD}"][Int(byte() % 6)]
        default:
            let length = count(24)
            return String(decoding: (0..<length).map { _ in byte() & 0x7F }, as: UTF8.self)
        }
    }

    mutating func double() -> Double {
        // NaN is left out: its payload does not survive JSON, and OTLP JSON writes it as "NaN" anyway.
        switch byte() % 4 {
        case 0: return [0, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude][Int(byte() % 6)]
        default:
            let value = Double(bitPattern: u64())
            return value.isNaN ? 1.5 : value
        }
    }

    /// Arrays and key-value lists nest at most this deep. A key-value list is three message levels, and an
    /// event or link attribute's value starts at level 6: 6 + 3 × 40 = 126, within the readers' 128.
    static let maxContainerLevels = 40

    mutating func value(depth: Int) -> OTLPAttributeValue? {
        let choice = byte() % (depth < Self.maxContainerLevels ? 9 : 7)
        switch choice {
        case 0: return nil
        case 1: return .string(string())
        case 2: return .bool(bool())
        case 3: return .int(Int64(bitPattern: u64()))
        case 4: return .double(double())
        case 5: return .bytes((0..<count(20)).map { _ in byte() })
        case 6: return .empty
        case 7: return .array((0..<count(4)).map { _ in value(depth: depth + 1) ?? .empty })
        default: return .keyValueList(attributes(depth: depth + 1))
        }
    }

    mutating func attributes(depth: Int = 0) -> [OTLPAttribute] {
        (0..<count(depth == 0 ? 8 : 4)).map { _ in OTLPAttribute(string(), value(depth: depth)) }
    }

    mutating func traceID() -> OTLPTraceID? { bool() ? OTLPTraceID(high: u64(), low: u64()) : nil }
    mutating func spanID() -> OTLPSpanID? { bool() ? OTLPSpanID(u64()) : nil }

    mutating func resource() -> OTLPResource? {
        bool() ? OTLPResource(attributes: attributes(), droppedAttributesCount: u32()) : nil
    }

    mutating func scope() -> OTLPInstrumentationScope? {
        bool() ? OTLPInstrumentationScope(name: string(), version: string(), attributes: attributes(), droppedAttributesCount: u32()) : nil
    }

    mutating func span() -> OTLPSpan {
        OTLPSpan(
            traceID: traceID(), spanID: spanID(), parentSpanID: spanID(), name: string(),
            kind: OTLPSpanKind(rawValue: Int32(byte() % 7)), startTimeUnixNano: u64(), endTimeUnixNano: u64(),
            attributes: attributes(),
            events: (0..<count(3)).map { _ in
                OTLPSpanEvent(name: string(), timeUnixNano: u64(), attributes: attributes(), droppedAttributesCount: u32())
            },
            links: (0..<count(3)).map { _ in
                OTLPSpanLink(
                    traceID: traceID(), spanID: spanID(), traceState: string(), attributes: attributes(),
                    droppedAttributesCount: u32(), flags: u32())
            },
            status: bool() ? OTLPSpanStatus(code: OTLPSpanStatus.Code(rawValue: Int32(byte() % 4)), message: string()) : nil,
            traceState: string(), flags: u32(), droppedAttributesCount: u32(), droppedEventsCount: u32(),
            droppedLinksCount: u32())
    }

    mutating func logRecord() -> OTLPLogRecord {
        OTLPLogRecord(
            timeUnixNano: u64(), observedTimeUnixNano: u64(), severity: OTLPSeverity(rawValue: Int32(byte() % 26)),
            severityText: string(), body: value(depth: 0), attributes: attributes(), traceID: traceID(), spanID: spanID(),
            flags: u32(), eventName: string(), droppedAttributesCount: u32())
    }

    mutating func traces() -> OTLPTracesData {
        OTLPTracesData(
            resourceGroups: (0..<count(3)).map { _ in
                OTLPResourceGroup<OTLPSpan>(
                    resource: resource(),
                    scopeGroups: (0..<count(3)).map { _ in
                        OTLPScopeGroup<OTLPSpan>(scope: scope(), items: (0..<count(5)).map { _ in span() }, schemaURL: string())
                    },
                    schemaURL: string())
            })
    }

    mutating func logs() -> OTLPLogsData {
        OTLPLogsData(
            resourceGroups: (0..<count(3)).map { _ in
                OTLPResourceGroup<OTLPLogRecord>(
                    resource: resource(),
                    scopeGroups: (0..<count(3)).map { _ in
                        OTLPScopeGroup<OTLPLogRecord>(
                            scope: scope(), items: (0..<count(5)).map { _ in logRecord() }, schemaURL: string())
                    },
                    schemaURL: string())
            })
    }
}
