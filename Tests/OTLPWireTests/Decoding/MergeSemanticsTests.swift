import COTLPShims
import Foundation
import Testing
@testable import OTLPWire
import OTLPTestSupport

/// The payload of the first length-delimited field `number` of `message`.
func first(_ number: Int, of message: [UInt8]) -> [UInt8]? {
    var position = 0
    func varint() -> UInt64 {
        var value: UInt64 = 0, shift: UInt64 = 0
        while position < message.count {
            let byte = message[position]
            position += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { break }
            shift += 7
        }
        return value
    }
    while position < message.count {
        let tag = varint()
        switch tag & 7 {
        case 0: _ = varint()
        case 1: position += 8
        case 5: position += 4
        case 2:
            let length = Int(varint())
            if Int(tag >> 3) == number { return Array(message[position..<(position + length)]) }
            position += length
        default: return nil
        }
    }
    return nil
}

/// Protobuf merge semantics: a singular message field that occurs twice merges (repeated fields append,
/// scalars present later win, a oneof's last member wins and two occurrences of the same message member
/// merge); the limits hold for the merged message.
@Suite("Protobuf merge semantics")
struct MergeSemanticsTests {
    static func traces(_ request: [UInt8]) throws -> OTLPTracesData { try OTLPDecoder().decodeTraces(request) }
    static func logs(_ request: [UInt8]) throws -> OTLPLogsData { try OTLPDecoder().decodeLogs(request) }
    /// A traces request holding one span with the given payload.
    static func spanRequest(_ span: [UInt8]) -> [UInt8] {
        OTLPProtobufBytes.field(1, OTLPProtobufBytes.field(2, OTLPProtobufBytes.field(2, span)))
    }
    /// A logs request holding one log record with the given payload.
    static func logRequest(_ record: [UInt8]) -> [UInt8] {
        OTLPProtobufBytes.field(1, OTLPProtobufBytes.field(2, OTLPProtobufBytes.field(2, record)))
    }

    @Test("a span status sent as {code} then {message} keeps both; a span sent twice merges field by field")
    func status() throws {
        let statusCode = OTLPProtobufBytes.field(15, OTLPProtobufBytes.varintField(3, 2))
        let statusMessage = OTLPProtobufBytes.field(15, OTLPProtobufBytes.field(2, Array("boom".utf8)))
        let span = try Self.traces(Self.spanRequest(OTLPProtobufBytes.field(5, Array("a".utf8)) + statusCode + statusMessage))
            .resourceGroups[0].scopeGroups[0]
            .items[0]
        #expect(span.status == OTLPSpanStatus(code: .error, message: "boom"))
        // Two encodings of a span, concatenated: the later one's fields win where present, lists append.
        let requestA = OTLPEncoder().encode(
            OTLPTracesData(
                resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"),
                items: [
                    OTLPSpan(
                        traceID: OTLPTraceID(high: 1, low: 2), spanID: OTLPSpanID(3), name: "first", startTimeUnixNano: 10,
                        endTimeUnixNano: 20,
                        attributes: [OTLPAttribute("a", 1)], status: OTLPSpanStatus(code: .error))
                ]))
        let requestB = OTLPEncoder().encode(
            OTLPTracesData(
                resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"),
                items: [
                    OTLPSpan(
                        traceID: nil, spanID: nil, name: "", startTimeUnixNano: 0, endTimeUnixNano: 30,
                        attributes: [OTLPAttribute("b", 2)], status: OTLPSpanStatus(code: .unset, message: "later"))
                ]))
        let spanA = try #require(first(2, of: first(2, of: first(1, of: requestA)!)!))
        let spanB = try #require(first(2, of: first(2, of: first(1, of: requestB)!)!))
        let merged = try Self.traces(Self.spanRequest(spanA + spanB)).resourceGroups[0].scopeGroups[0].items[0]
        #expect(merged.name == "first" && merged.traceID == OTLPTraceID(high: 1, low: 2) && merged.startTimeUnixNano == 10)
        #expect(merged.endTimeUnixNano == 30)
        #expect(merged.attributes == [OTLPAttribute("a", 1), OTLPAttribute("b", 2)])
        #expect(merged.status == OTLPSpanStatus(code: .error, message: "later"))
    }

    @Test("AnyValue: two kvlist values merge; the oneof's last member wins; a value after another member starts over")
    func anyValueOneof() throws {
        func kv(_ key: String, _ value: Int64) -> [UInt8] {
            OTLPProtobufBytes.field(
                1, OTLPProtobufBytes.field(1, Array(key.utf8)) + OTLPProtobufBytes.field(2, OTLPProtobufBytes.varintField(3, UInt64(value)))
            )
        }
        let kvlistA = OTLPProtobufBytes.field(6, kv("a", 1)), kvlistB = OTLPProtobufBytes.field(6, kv("b", 2)),
            string = OTLPProtobufBytes.field(1, Array("s".utf8))
        let cases: [([UInt8], OTLPAttributeValue)] = [
            (
                OTLPProtobufBytes.field(5, kvlistA) + OTLPProtobufBytes.field(5, kvlistB),
                .keyValueList([OTLPAttribute("a", 1), OTLPAttribute("b", 2)])
            ),  // body twice
            (OTLPProtobufBytes.field(5, kvlistA + kvlistB), .keyValueList([OTLPAttribute("a", 1), OTLPAttribute("b", 2)])),  // kvlist twice in one AnyValue
            (OTLPProtobufBytes.field(5, kvlistA + string), .string("s")),
            (
                OTLPProtobufBytes.field(5, kvlistA) + OTLPProtobufBytes.field(5, string) + OTLPProtobufBytes.field(5, kvlistB),
                .keyValueList([OTLPAttribute("b", 2)])
            ),
            (OTLPProtobufBytes.field(5, string + kvlistB), .keyValueList([OTLPAttribute("b", 2)])),
            (
                OTLPProtobufBytes.field(5, OTLPProtobufBytes.field(5, OTLPProtobufBytes.field(1, OTLPProtobufBytes.varintField(3, 1))))
                    + OTLPProtobufBytes.field(5, OTLPProtobufBytes.field(5, OTLPProtobufBytes.field(1, string))),
                .array([.int(1), .string("s")])
            ),
            (
                OTLPProtobufBytes.field(5, OTLPProtobufBytes.field(5, OTLPProtobufBytes.field(1, OTLPProtobufBytes.varintField(3, 1))))
                    + OTLPProtobufBytes.field(5, kvlistB), .keyValueList([OTLPAttribute("b", 2)])
            ),
        ]
        for (record, expected) in cases {
            let body = try Self.logs(Self.logRequest(record)).resourceGroups[0].scopeGroups[0].items[0].body
            #expect(body == expected, "\(record)")
        }
        // A KeyValue's value merges the same way (a KeyValue whose value field occurs twice).
        let attribute = OTLPProtobufBytes.field(
            6, OTLPProtobufBytes.field(1, Array("k".utf8)) + OTLPProtobufBytes.field(2, kvlistA) + OTLPProtobufBytes.field(2, kvlistB))
        let record = try Self.logs(Self.logRequest(attribute)).resourceGroups[0].scopeGroups[0].items[0]
        #expect(record.attributes == [OTLPAttribute("k", .keyValueList([OTLPAttribute("a", 1), OTLPAttribute("b", 2)]))])
    }

    @Test("limits hold for the merged message: two resources of 6,000 attributes are 12,000; merged nesting is checked")
    func limitsAfterMerge() throws {
        let attribute = OTLPProtobufBytes.field(1, OTLPProtobufBytes.field(1, Array("k".utf8)))
        let resource = OTLPProtobufBytes.field(1, Array(repeating: attribute, count: 6_000).flatMap { $0 })
        let one = OTLPProtobufBytes.field(1, resource)
        #expect(try Self.traces(one).resourceGroups[0].resource?.attributes.count == 6_000)
        do {
            _ = try Self.traces(OTLPProtobufBytes.field(1, resource + resource))
            Issue.record("12,000 merged attributes were accepted")
        } catch let error as OTLPReadError {
            #expect(error.code == .tooManyAttributes && error.message.contains("resource") && error.message.contains("after merging"))
        }
        // Nesting: merging never deepens; a merged body at the limit is read, one past it is not.
        func nested(_ levels: Int) -> [UInt8] {
            var value = OTLPProtobufBytes.varintField(3, 1)
            for _ in 0..<levels { value = OTLPProtobufBytes.field(5, OTLPProtobufBytes.field(1, value)) }
            return value
        }
        // A log body is level 4; each array adds 2: 48 arrays reach level 100 (the limit), 49 reach 102.
        let atLimit = OTLPProtobufBytes.field(5, nested(48)) + OTLPProtobufBytes.field(5, nested(1))
        #expect(try Self.logs(Self.logRequest(atLimit)).itemCount == 1)
        #expect(throws: OTLPReadError.self) {
            try Self.logs(Self.logRequest(OTLPProtobufBytes.field(5, nested(49)) + OTLPProtobufBytes.field(5, nested(1))))
        }
    }

    // MARK: - Differential test against the reference decoder

    typealias Random = SplitMix64

    static func value(_ random: inout Random, depth: Int) -> OTLPAttributeValue {
        switch random.below(depth > 2 ? 5 : 8) {
        case 0: return .string(random.text())
        case 1: return .bool(random.chance(50))
        case 2: return .int(Int64(bitPattern: random.next()) >> random.below(64))
        case 3: return .double(Double(random.below(2000)) / 8 - 100)
        case 4: return .bytes((0..<random.below(5)).map { _ in UInt8(random.below(256)) })
        case 5, 6: return .keyValueList(attributes(&random, depth: depth + 1))
        default: return .array((0..<random.below(4)).map { _ in value(&random, depth: depth + 1) })
        }
    }

    static func attributes(_ random: inout Random, depth: Int = 0) -> [OTLPAttribute] {
        (0..<(1 + random.below(3))).map { _ in OTLPAttribute(random.text(), random.chance(90) ? value(&random, depth: depth) : nil) }
    }

    static func traceID(_ random: inout Random) -> OTLPTraceID? {
        random.chance(80) ? OTLPTraceID(high: random.next(), low: random.next() | 1) : nil
    }
    static func spanID(_ random: inout Random) -> OTLPSpanID? { random.chance(80) ? OTLPSpanID(random.next() | 1) : nil }

    static func randomTraces(_ random: inout Random) -> OTLPTracesData {
        func span() -> OTLPSpan {
            OTLPSpan(
                traceID: traceID(&random), spanID: spanID(&random), parentSpanID: random.chance(50) ? spanID(&random) : nil,
                name: random.text(), kind: OTLPSpanKind(rawValue: Int32(random.below(6))),
                startTimeUnixNano: random.next() >> 2, endTimeUnixNano: random.chance(80) ? random.next() >> 2 : 0,
                attributes: attributes(&random),
                events: (0..<random.below(3)).map { _ in
                    OTLPSpanEvent(
                        name: random.text(), timeUnixNano: random.next() >> 3, attributes: random.chance(50) ? attributes(&random) : [])
                },
                links: (0..<random.below(2)).map { _ in
                    OTLPSpanLink(
                        traceID: traceID(&random), spanID: spanID(&random), traceState: random.text(), flags: UInt32(random.below(1024)))
                },
                status: random.chance(70) ? OTLPSpanStatus(code: .init(rawValue: Int32(random.below(3))), message: random.text()) : nil,
                traceState: random.chance(20) ? "k=v" : "", flags: UInt32(random.below(512)),
                droppedAttributesCount: UInt32(random.below(3)), droppedEventsCount: UInt32(random.below(2)),
                droppedLinksCount: UInt32(random.below(2)))
        }
        return OTLPTracesData(
            resourceGroups: (0..<(1 + random.below(2))).map { _ in
                OTLPResourceGroup<OTLPSpan>(
                    resource: OTLPResource(attributes: attributes(&random), droppedAttributesCount: UInt32(random.below(2))),
                    scopeGroups: (0..<(1 + random.below(2))).map { _ in
                        OTLPScopeGroup<OTLPSpan>(
                            scope: OTLPInstrumentationScope(
                                name: random.text(), version: random.text(), attributes: random.chance(50) ? attributes(&random) : []),
                            items: (0..<(1 + random.below(3))).map { _ in span() }, schemaURL: random.chance(30) ? "https://s/1" : "")
                    }, schemaURL: random.chance(30) ? "https://r/1" : "")
            })
    }

    static func randomLogs(_ random: inout Random) -> OTLPLogsData {
        func record() -> OTLPLogRecord {
            OTLPLogRecord(
                timeUnixNano: random.next() >> 2, observedTimeUnixNano: random.chance(50) ? random.next() >> 2 : 0,
                severity: OTLPSeverity(rawValue: Int32(random.below(25))), severityText: random.text(),
                body: random.chance(90) ? value(&random, depth: 0) : nil, attributes: attributes(&random),
                traceID: traceID(&random), spanID: spanID(&random), flags: UInt32(random.below(256)), eventName: random.text(),
                droppedAttributesCount: UInt32(random.below(2)))
        }
        return OTLPLogsData(
            resourceGroups: (0..<(1 + random.below(2))).map { _ in
                OTLPResourceGroup<OTLPLogRecord>(
                    resource: OTLPResource(attributes: attributes(&random)),
                    scopeGroups: (0..<(1 + random.below(2))).map { _ in
                        OTLPScopeGroup<OTLPLogRecord>(
                            scope: OTLPInstrumentationScope(name: random.text()),
                            items: (0..<(1 + random.below(3))).map { _ in record() })
                    })
            })
    }

    /// Two encodings of the same message type at `level` below the request, concatenated (a protobuf merge):
    /// 0 the requests, 1 the first resource groups, 2 scope groups, 3 items, 4 the items' first attribute
    /// (for logs, 5: the bodies). Upper levels are rebuilt around the merge.
    static func concatenated(_ a: [UInt8], _ b: [UInt8], level: Int, logs: Bool) -> [UInt8]? {
        if level == 0 { return a + b }
        guard let ra = first(1, of: a), let rb = first(1, of: b) else { return nil }
        if level == 1 { return OTLPProtobufBytes.field(1, ra + rb) }
        guard let sa = first(2, of: ra), let sb = first(2, of: rb) else { return nil }
        if level == 2 { return OTLPProtobufBytes.field(1, OTLPProtobufBytes.field(2, sa + sb)) }
        guard let ia = first(2, of: sa), let ib = first(2, of: sb) else { return nil }
        if level == 3 { return OTLPProtobufBytes.field(1, OTLPProtobufBytes.field(2, OTLPProtobufBytes.field(2, ia + ib))) }
        let number = level == 5 ? 5 : logs ? 6 : 9
        guard let fa = first(number, of: ia), let fb = first(number, of: ib) else { return nil }
        return OTLPProtobufBytes.field(1, OTLPProtobufBytes.field(2, OTLPProtobufBytes.field(2, OTLPProtobufBytes.field(number, fa + fb))))
    }

    @Test("differential: 1,200+ random and concatenated requests decode to the reference decoder's OTLP JSON")
    func differential() throws {
        var random = Random(state: 0x0_7E1E_C0DE)
        var traces: [[UInt8]] = [], logs: [[UInt8]] = []
        for _ in 0..<250 { traces.append(OTLPEncoder().encode(Self.randomTraces(&random))) }
        for _ in 0..<250 { logs.append(OTLPEncoder().encode(Self.randomLogs(&random))) }
        let randomTraces = traces, randomLogs = logs
        for index in 0..<400 {
            let a = randomTraces[random.below(randomTraces.count)], b = randomTraces[random.below(randomTraces.count)]
            if let merged = Self.concatenated(a, b, level: index % 5, logs: false) { traces.append(merged) }
            let c = randomLogs[random.below(randomLogs.count)], d = randomLogs[random.below(randomLogs.count)]
            if let merged = Self.concatenated(c, d, level: index % 6, logs: true) { logs.append(merged) }
        }
        #expect(traces.count + logs.count >= 1_200)
        let directory = try OTLPTemporaryDirectory.make("otlpwire-merge")
        defer { try? FileManager.default.removeItem(at: directory) }
        for (signal, requests) in [(OTLPSignal.traces, traces), (.logs, logs)] {
            let path = directory.appendingPathComponent("\(signal).u32be.bin").path
            try Data(requests.flatMap { HostileInputTests.framed($0) }).write(to: URL(fileURLWithPath: path))
            let reference = try ReferenceDecoder.decode(path: path, framing: .u32be, signal: signal)
            #expect(reference.count == requests.count)
            var differences = 0
            for (index, (request, line)) in zip(requests, reference).enumerated() {
                let ours: [UInt8]
                switch signal {
                case .traces: ours = OTLPJSONEncoder().encode(try Self.traces(request))
                case .logs: ours = OTLPJSONEncoder().encode(try Self.logs(request))
                case .metrics: ours = OTLPJSONEncoder().encode(try OTLPDecoder().decodeMetrics(request))
                }
                if let difference = SemanticJSON.difference(try SemanticJSON.parse(ours), try SemanticJSON.parse(line)) {
                    differences += 1
                    if differences <= 5 { Issue.record("\(signal) request \(index): \(difference)") }
                }
            }
            #expect(differences == 0, "\(signal): \(differences) of \(requests.count) requests differ")
        }
    }

    @Test(
        "the C merge on 3,000 mutated concatenations: never past its room, its output scans and needs no further merge; decoding never traps"
    )
    func mutatedMerges() {
        var random = Random(state: 0x5EED)
        let seeds =
            (0..<40).map { _ in OTLPEncoder().encode(Self.randomTraces(&random)) }
            + (0..<40).map { _ in OTLPEncoder().encode(Self.randomLogs(&random)) }
        var merged = 0
        for round in 0..<3_000 {
            let logs = round % 2 == 1
            let pool = logs ? Array(seeds[40...]) : Array(seeds[..<40])
            guard
                var bytes = Self.concatenated(
                    pool[random.below(40)], pool[random.below(40)], level: 1 + random.below(logs ? 5 : 4), logs: logs)
            else { continue }
            for _ in 0..<random.below(3) where !bytes.isEmpty { bytes[random.below(bytes.count)] = UInt8(random.below(256)) }
            let kind = Int32(logs ? COTLPSHIMS_KIND_LOGS : COTLPSHIMS_KIND_TRACES)
            var limits = COTLPShims_ScanLimits(max_depth: 100, max_attributes: .max, max_unpacked_bytes: .max, model_costs: nil)
            var result = COTLPShims_ScanResult()
            bytes.withUnsafeBufferPointer { COTLPShims_scan($0.baseAddress, $0.count, kind, &limits, &result) }
            if Int(result.status) == COTLPSHIMS_SCAN_OK && result.needs_merge != 0 {
                let capacity = random.below(4) == 0 ? random.below(bytes.count + 1) : bytes.count
                var out = [UInt8](repeating: 0, count: max(capacity, 1))
                let written = bytes.withUnsafeBufferPointer { COTLPShims_merge($0.baseAddress, $0.count, kind, &out, capacity) }
                #expect(written == -1 ? capacity < bytes.count : written <= capacity)
                if written >= 0 {
                    merged += 1
                    var again = COTLPShims_ScanResult()
                    out.withUnsafeBufferPointer { COTLPShims_scan($0.baseAddress, written, kind, &limits, &again) }
                    #expect(Int(again.status) == COTLPSHIMS_SCAN_OK && again.needs_merge == 0)
                }
            }
            // The whole decoder on the same bytes: a value or an OTLPReadError, never a trap.
            _ = try? logs ? OTLPDecoder().decodeLogs(bytes).itemCount : OTLPDecoder().decodeTraces(bytes).itemCount
        }
        #expect(merged > 1_000)
    }
}

extension SplitMix64 {
    fileprivate mutating func text() -> String {
        ["", "a", "key", "span-name", "héllo wörld", "\u{0}nul", "a-longer-string-over-fifteen"][below(7)]
    }
}
