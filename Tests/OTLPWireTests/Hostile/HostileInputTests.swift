import Foundation
import Testing
@testable import OTLPWire
import OTLPTestSupport

/// Hostile input beyond the shared damaged vectors: every case asserts the error class, the record index
/// and the records delivered before it.
@Suite("Hostile input")
struct HostileInputTests {
    struct Outcome {
        var records = 0
        var error: OTLPReadError?
    }

    static func read(
        _ bytes: [UInt8], framing: OTLPFraming? = nil, signal: OTLPSignal? = .traces, options: OTLPReaderOptions = OTLPReaderOptions()
    ) -> Outcome {
        var options = options
        options.framing = framing
        options.signal = signal
        var outcome = Outcome()
        do {
            let reader = try OTLPRecordReader(source: OTLPMemorySource(bytes), options: options)
            while try reader.next() != nil { outcome.records += 1 }
        } catch {
            outcome.error = error
        }
        return outcome
    }

    static let good: [UInt8] = OTLPEncoder().encode(SampleTelemetry.traces(3))
    static func u32(_ length: UInt32) -> [UInt8] {
        [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
    }
    static func framed(_ message: [UInt8]) -> [UInt8] { u32(UInt32(message.count)) + message }

    @Test(
        "u32be prefixes: 0 is an empty record; 2^31-1 and 2^32-1 are too large, refused before reading",
        arguments: [
            (UInt32(0), nil as OTLPReadError.Code?, 3), (UInt32(0x7FFF_FFFF), .recordTooLarge, 2),
            (UInt32(0xFFFF_FFFF), .recordTooLarge, 2),
        ])
    func u32bePrefixes(prefix: UInt32, expected: OTLPReadError.Code?, records: Int) {
        let bytes = Self.framed(Self.good) + Self.framed(Self.good) + Self.u32(prefix) + Array(repeating: 0, count: 64)
        let outcome = Self.read(prefix == 0 ? Self.framed(Self.good) + Self.framed(Self.good) + Self.u32(0) : bytes, framing: .u32be)
        #expect(outcome.records == records)
        #expect(outcome.error?.code == expected)
        if expected != nil {
            #expect(outcome.error?.recordIndex == 2)
            #expect(outcome.error?.byteOffset == 2 * (4 + Self.good.count))
        }
    }

    @Test("varint prefixes: 10 bytes (non-minimal) are fine; 11 are bad_length_prefix")
    func varintPrefixes() {
        let length = Self.good.count
        var tenBytes = (0..<9).map { UInt8((length >> (7 * $0)) & 0x7F) | 0x80 }
        tenBytes.append(0)
        let ok = Self.read(tenBytes + Self.good, framing: .varint)
        #expect(ok.error == nil && ok.records == 1)
        let eleven = Array(repeating: UInt8(0x80), count: 10) + [0x01] + Self.good
        let bad = Self.read(Self.framed(Self.good) + eleven, framing: .u32be)
        #expect(bad.error?.code == .malformedProtobuf || bad.error?.code == .recordTooLarge)  // not varint-framed: garbage
        let badVarint = Self.read(
            [UInt8(Self.good.count & 0x7F) | 0x80, UInt8(Self.good.count >> 7)] + Self.good + eleven, framing: .varint)
        #expect(badVarint.records == 1 && badVarint.error?.code == .badLengthPrefix && badVarint.error?.recordIndex == 1)
    }

    @Test("a logs request inside a traces stream is wrong_kind at its index")
    func otherSignal() {
        let logs = OTLPEncoder().encode(SampleTelemetry.logs(2))
        let outcome = Self.read(Self.framed(Self.good) + Self.framed(logs) + Self.framed(Self.good), framing: .u32be)
        #expect(outcome.records == 1 && outcome.error?.code == .wrongKind && outcome.error?.recordIndex == 1)
    }

    @Test("a trace ID of the wrong length is refused with the record index")
    func wrongIDLength() {
        let short: [UInt8] = [0x0A, 0x0B, 0x12, 0x09, 0x12, 0x07, 0x0A, 0x05, 1, 2, 3, 4, 5]
        let outcome = Self.read(Self.framed(Self.good) + Self.framed(short), framing: .u32be)
        #expect(outcome.records == 1 && outcome.error?.code == .malformedProtobuf && outcome.error?.recordIndex == 1)
        #expect(outcome.error?.message.contains("5 bytes") == true)
    }

    @Test("invalid UTF-8 in an attribute key is malformed_protobuf; in bytesValue it is fine")
    func invalidUTF8() {
        // request { rs { resource { attributes { key: 0xFF 0xFE } } } }
        let bad: [UInt8] = [0x0A, 0x08, 0x0A, 0x06, 0x0A, 0x04, 0x0A, 0x02, 0xFF, 0xFE]
        let outcome = Self.read(Self.framed(Self.good) + Self.framed(bad), framing: .u32be)
        #expect(outcome.records == 1 && outcome.error?.code == .malformedProtobuf && outcome.error?.recordIndex == 1)
        let bytesValue = OTLPEncoder().encode(
            OTLPTracesData(
                resource: OTLPResource(attributes: [OTLPAttribute("b", .bytes([0xFF, 0xFE]))]), scope: OTLPInstrumentationScope(name: "s"),
                items: []))
        #expect(Self.read(Self.framed(bytesValue), framing: .u32be).error == nil)
    }

    @Test("JSON: NaN and infinities as the spec spells them are read; bare NaN tokens are malformed_json")
    func jsonSpecialNumbers() throws {
        let line =
            #"{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"n","attributes":[{"key":"a","value":{"doubleValue":"NaN"}},{"key":"b","value":{"doubleValue":"-Infinity"}}]}]}]}]}"#
        #expect(Self.read(Array((line + "\n").utf8), framing: .jsonl).records == 1)
        let bare = #"{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"key":"a","value":{"doubleValue":NaN}}]}]}]}]}"#
        let outcome = Self.read(Array((line + "\n" + bare + "\n").utf8), framing: .jsonl)
        #expect(outcome.records == 1 && outcome.error?.code == .malformedJSON && outcome.error?.recordIndex == 1)
    }

    static func nested(_ depth: Int) -> OTLPAttributeValue { depth == 0 ? .int(1) : .array([nested(depth - 1)]) }
    static func deep(_ arrays: Int) -> OTLPTracesData {
        OTLPTracesData(
            resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"),
            items: [
                OTLPSpan(
                    traceID: nil, spanID: nil, name: "deep", startTimeUnixNano: 1, endTimeUnixNano: 2,
                    attributes: [OTLPAttribute("v", nested(arrays))])
            ])
    }

    @Test("nesting at the limit is read, one level past it is nesting_too_deep, in protobuf and in JSON alike")
    func nesting() {
        // A span attribute's value is level 5; each array adds 2: 47 arrays put the innermost value at 99, 48 at 101.
        for (arrays, expected) in [(47, nil as OTLPReadError.Code?), (48, .nestingTooDeep)] {
            let data = Self.deep(arrays)
            let protobuf = Self.read(Self.framed(Self.good) + Self.framed(OTLPEncoder().encode(data)), framing: .u32be)
            #expect(protobuf.error?.code == expected, "protobuf, \(arrays) arrays")
            let json = Array(
                (String(decoding: OTLPJSONEncoder().encode(OTLPTracesData(resourceGroups: [])), as: UTF8.self) + "\n"
                    + String(decoding: OTLPJSONEncoder().encode(data), as: UTF8.self) + "\n").utf8)
            let fromJSON = Self.read(json, framing: .jsonl)
            #expect(fromJSON.error?.code == expected, "JSON, \(arrays) arrays")
            if expected != nil {
                #expect(protobuf.records == 1 && protobuf.error?.recordIndex == 1)
                #expect(fromJSON.records == 1 && fromJSON.error?.recordIndex == 1)
            }
        }
        // Far past the limit: no stack overflow in either reader.
        let hostile = Array(String(repeating: #"{"arrayValue":{"values":["#, count: 50_000).utf8)
        #expect(
            Self.read(
                Array(#"{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"key":"k","value":"#.utf8) + hostile + [0x0A],
                framing: .jsonl
            ).error?.code == .nestingTooDeep)
    }

    static func attributes(_ count: Int) -> [OTLPAttribute] { (0..<count).map { OTLPAttribute("k\($0)", .int(Int64($0))) } }

    /// One traces request where only `item` carries `count` attributes.
    static func manyAttributes(_ count: Int, on item: String) -> OTLPTracesData {
        let many = attributes(count)
        var span = OTLPSpan(traceID: nil, spanID: nil, name: "s", startTimeUnixNano: 1, endTimeUnixNano: 2)
        var resource = OTLPResource()
        var scope = OTLPInstrumentationScope(name: "s")
        switch item {
        case "span": span.attributes = many
        case "span event": span.events = [OTLPSpanEvent(name: "e", timeUnixNano: 1, attributes: many)]
        case "span link": span.links = [OTLPSpanLink(traceID: OTLPTraceID(high: 1, low: 2), spanID: OTLPSpanID(3), attributes: many)]
        case "resource": resource.attributes = many
        default: scope.attributes = many
        }
        return OTLPTracesData(resource: resource, scope: scope, items: [span])
    }

    @Test(
        "attributes per item: at the limit is read, one more is too_many_attributes, in protobuf and JSON",
        arguments: ["span", "span event", "span link", "resource", "instrumentation scope"])
    func attributeCount(item: String) {
        var options = OTLPReaderOptions()
        options.decoding.maxAttributesPerItem = 20
        let empty = OTLPTracesData(resourceGroups: [])
        for (count, expected) in [(20, nil as OTLPReadError.Code?), (21, .tooManyAttributes)] {
            let data = Self.manyAttributes(count, on: item)
            let protobuf = Self.read(Self.framed(Self.good) + Self.framed(OTLPEncoder().encode(data)), framing: .u32be, options: options)
            let lines = [empty, data].map { String(decoding: OTLPJSONEncoder().encode($0), as: UTF8.self) + "\n" }.joined()
            let json = Self.read(Array(lines.utf8), framing: .jsonl, options: options)
            for (name, outcome) in [("protobuf", protobuf), ("JSON", json)] {
                #expect(outcome.error?.code == expected, "\(name), \(item), \(count) attributes")
                #expect(outcome.records == (expected == nil ? 2 : 1), "\(name), \(item), \(count) attributes")
                if expected != nil {
                    #expect(outcome.error?.recordIndex == 1)
                    #expect(
                        outcome.error?.message.contains(
                            "\(item == "instrumentation scope" ? "an" : "a") \(item) has more than 20 attributes") == true,
                        "\(outcome.error!)")
                }
            }
        }
    }

    @Test("a log record over the attribute limit is too_many_attributes; the default limit takes 10,000")
    func logRecordAttributeCount() {
        let logs = { (count: Int) in
            OTLPLogsData(
                resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"),
                items: [
                    OTLPLogRecord(timeUnixNano: 1, attributes: Self.attributes(count))
                ])
        }
        let good = OTLPEncoder().encode(logs(10_000))
        #expect(Self.read(Self.framed(good), framing: .u32be, signal: .logs).records == 1)
        let bad = Self.read(Self.framed(good) + Self.framed(OTLPEncoder().encode(logs(10_001))), framing: .u32be, signal: .logs)
        #expect(bad.records == 1 && bad.error?.code == .tooManyAttributes && bad.error?.recordIndex == 1)
        #expect(bad.error?.message.contains("a log record has more than 10000 attributes") == true)
        // Detection does not apply the limit: the signal is still found, and decoding names the fault.
        let detected = Self.read(Self.framed(OTLPEncoder().encode(logs(10_001))), framing: .u32be, signal: nil)
        #expect(detected.error?.code == .tooManyAttributes && detected.error?.recordIndex == 0)
    }

    /// A traces request of `spans` spans, each with `attributes` empty attributes (2 bytes apiece on the wire).
    static func emptyAttributes(spans: Int, attributes: Int) -> [UInt8] {
        let span = OTLPProtobufBytes.field(2, Array(repeating: [0x4A, 0x00], count: attributes).flatMap { $0 })
        return OTLPProtobufBytes.field(1, OTLPProtobufBytes.field(2, Array(repeating: span, count: spans).flatMap { $0 }))
    }

    @Test("the pre-scan's estimate of unpack memory covers what protobuf-c takes, within 2x, on every vector")
    func decodedBytesEstimate() throws {
        let decoder = OTLPDecoder()
        var messages: [(String, OTLPSignal, [UInt8])] = [
            ("empty attributes", .traces, Self.emptyAttributes(spans: 20, attributes: 500)),
            ("sample traces", .traces, Self.good), ("sample logs", .logs, OTLPEncoder().encode(SampleTelemetry.logs(50))),
        ]
        for signal in [OTLPSignal.traces, .logs] {
            let directory = SharedVectors.root.appendingPathComponent(signal.rawValue)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() where name.hasSuffix(".pb") {
                messages.append((name, signal, try SharedVectors.bytes("\(signal.rawValue)/\(name)")))
            }
        }
        for (name, signal, bytes) in messages {
            try bytes.withUnsafeBytes { buffer in
                let estimate = try #require(decoder.estimatedDecodedBytes(buffer, as: signal), "\(name)")
                let arena = ProtobufCArena()
                try decoder.unpack(buffer, as: signal, arena: arena)
                let actual = arena.bytesInUse
                print("\(name): \(bytes.count) bytes on the wire, unpack took \(actual), estimate \(estimate)")
                #expect(estimate >= actual && estimate <= 2 * actual, "\(name): estimate \(estimate), actual \(actual)")
            }
        }
    }

    @Test("a record of empty attributes that would unpack to more than maxDecodedBytes is record_too_large, before unpack")
    func decodedBytesLimit() {
        let hostile = Self.emptyAttributes(spans: 100, attributes: 1_000)  // 200 KB on the wire, ~5 MB unpacked
        var options = OTLPReaderOptions()
        options.decoding.maxDecodedBytes = 1 << 20
        let outcome = Self.read(Self.framed(Self.good) + Self.framed(hostile) + Self.framed(Self.good), framing: .u32be, options: options)
        #expect(outcome.records == 1 && outcome.error?.code == .recordTooLarge && outcome.error?.recordIndex == 1)
        #expect(outcome.error?.message.contains("more than 1048576 bytes of memory") == true)
        #expect(Self.read(Self.framed(hostile), framing: .u32be).error == nil)  // the default (1 GiB) reads it
    }

    @Test("a gzip bomb (a small file inflating to gigabytes of one huge record) stops at the inflation ratio")
    func gzipBomb() throws {
        let sink = OTLPMemorySink()
        let deflater = GzipDeflater(level: 9)
        var compressed: [UInt8] = []
        try Self.u32(0x03FF_FFFF).withUnsafeBytes { try deflater.compress($0, into: &compressed) }  // a 64 MiB - 1 record
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        for _ in 0..<40 { try zeros.withUnsafeBytes { try deflater.compress($0, into: &compressed) } }
        try deflater.finishMember(into: &compressed)
        try compressed.withUnsafeBytes { try sink.write($0) }
        #expect(sink.bytes.count < 100_000)
        // The record size limit is raised to let the prefix through (the default, 8 MiB, refuses it at once).
        var options = OTLPReaderOptions()
        options.decoding.maxRecordBytes = 64 << 20
        let outcome = Self.read(sink.bytes, framing: .u32be, options: options)
        #expect(outcome.records == 0 && outcome.error?.code == .gzipTooLarge && outcome.error?.recordIndex == 0)
        #expect(Self.read(sink.bytes, framing: .u32be).error?.code == .recordTooLarge)
        // A raised limit lets it through to the framing layer, which then finds the record cut short.
        var lenient = options
        lenient.maxInflationRatio = .max
        #expect(Self.read(sink.bytes, framing: .u32be, options: lenient).error?.code == .truncatedRecord)
    }

    @Test("a file that grows while it is read: records appended before the end was reached are delivered")
    func growingFile() throws {
        let directory = try OTLPTemporaryDirectory.make("growing")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("t.u32be.bin").path
        let writer = OTLPRecordWriter(sink: try OTLPFileSink(path: path))
        try writer.write(SampleTelemetry.traces(2))
        try writer.write(SampleTelemetry.traces(2))
        let reader = try OTLPRecordReader(path: path, options: OTLPReaderOptions(framing: .u32be, signal: .traces))
        #expect(try reader.next() != nil)
        try writer.write(SampleTelemetry.traces(2))  // appended while the reader is in the middle
        var rest = 0
        while try reader.next() != nil { rest += 1 }
        #expect(rest == 2)
        try writer.write(SampleTelemetry.traces(2))  // after the reader saw the end: not read, no hang
        #expect(try reader.next() == nil)
    }
}
