import OTLPTestSupport
import Testing
@testable import OTLPWire

@Suite("OTLPEncoder")
struct OTLPEncoderTests {
    /// Encodes, decodes with our decoder and with the reference-shaped JSON, and checks both agree.
    func roundTrip(_ data: OTLPTracesData) throws {
        let encoder = OTLPEncoder()
        let bytes = encoder.encode(data)
        let decoded = try OTLPDecoder().decodeTraces(bytes)
        #expect(OTLPJSONEncoder().encode(decoded) == OTLPJSONEncoder().encode(data))
        // A second encode with the same encoder (arena and buffers reused) gives the same bytes.
        #expect(encoder.encode(data) == bytes)
    }

    func span(name: String, attributes: [OTLPAttribute] = []) -> OTLPSpan {
        OTLPSpan(
            traceID: OTLPTraceID(high: 1, low: 2), spanID: OTLPSpanID(3), name: name, startTimeUnixNano: 10, endTimeUnixNano: 20,
            attributes: attributes)
    }

    @Test("an empty request is zero bytes; empty groups are kept")
    func empty() throws {
        #expect(OTLPEncoder().encode(OTLPTracesData()).isEmpty)
        #expect(OTLPEncoder().encode(OTLPLogsData()).isEmpty)
        try roundTrip(
            OTLPTracesData(resourceGroups: [
                OTLPResourceGroup<OTLPSpan>(resource: nil),
                OTLPResourceGroup<OTLPSpan>(resource: OTLPResource(), scopeGroups: [OTLPScopeGroup<OTLPSpan>(scope: nil)]),
            ]))
    }

    @Test("items over 16 KiB and under 128 bytes (the 2-byte length slot moves)", arguments: [0, 1, 100, 20_000, 70_000])
    func itemSizes(nameLength: Int) throws {
        let scope = OTLPInstrumentationScope(name: "s")
        try roundTrip(
            OTLPTracesData(
                resource: OTLPResource(), scope: scope, items: [span(name: String(repeating: "n", count: nameLength)), span(name: "x")]))
    }

    @Test("batches under 16 KiB and over 2 MiB (the 3-byte envelope slots move)", arguments: [1, 3_000, 12_000])
    func batchSizes(spanCount: Int) throws {
        let spans = (0..<spanCount).map {
            span(
                name: "span-\($0)",
                attributes: [OTLPAttribute("i", .int(Int64($0))), OTLPAttribute("pad", .string(String(repeating: "p", count: 150)))])
        }
        try roundTrip(
            OTLPTracesData(
                resource: OTLPResource(attributes: [OTLPAttribute("service.name", "x")]), scope: OTLPInstrumentationScope(name: "s"),
                items: spans))
    }

    @Test("schema URLs, entity refs, several resources and scopes, dropped counts")
    func envelope() throws {
        let resource = OTLPResource(
            attributes: [OTLPAttribute("service.name", "a")], droppedAttributesCount: 4,
            entityRefs: [
                OTLPEntityRef(schemaURL: "https://example.com/s", type: "service", idKeys: ["service.name", ""], descriptionKeys: ["d"])
            ])
        let data = OTLPTracesData(resourceGroups: [
            OTLPResourceGroup<OTLPSpan>(
                resource: resource,
                scopeGroups: [
                    OTLPScopeGroup<OTLPSpan>(
                        scope: OTLPInstrumentationScope(
                            name: "one", version: "1", attributes: [OTLPAttribute("k", 1)], droppedAttributesCount: 2),
                        items: [span(name: "a")], schemaURL: "https://s/1"),
                    OTLPScopeGroup<OTLPSpan>(scope: OTLPInstrumentationScope(name: "two"), items: [span(name: "b"), span(name: "c")]),
                ], schemaURL: "https://r/1"),
            OTLPResourceGroup<OTLPSpan>(
                resource: OTLPResource(attributes: [OTLPAttribute("service.name", "b")]),
                scopeGroups: [OTLPScopeGroup<OTLPSpan>(scope: OTLPInstrumentationScope(name: "three"), items: [span(name: "d")])]),
        ])
        try roundTrip(data)
    }

    @Test("every AnyValue kind at its edges, in attributes, arrays and lists")
    func anyValues() throws {
        let values: [OTLPAttributeValue] = [
            .string(""), .string("\u{0}"), .string("é🚀"), .bool(false), .bool(true), .int(0), .int(.min), .int(.max),
            .double(0), .double(-0.0), .double(.infinity), .double(-.infinity), .double(.greatestFiniteMagnitude),
            .bytes([]), .bytes([0, 0xFF]), .array([]), .array([.empty, .int(-1), .array([.string("")])]),
            .keyValueList([]), .keyValueList([OTLPAttribute("", .empty), OTLPAttribute("k", nil), OTLPAttribute("", "v")]), .empty,
        ]
        var attributes = values.enumerated().map { OTLPAttribute("k\($0.offset)", $0.element) }
        attributes.append(OTLPAttribute("", .int(5)))  // empty key: the key field is left out
        attributes.append(OTLPAttribute("absent", nil))
        try roundTrip(
            OTLPTracesData(
                resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"), items: [span(name: "v", attributes: attributes)]))
    }

    @Test("a string, boolean, integer, double, bytes or empty value is packed by the encoder itself as protobuf defines it")
    func packedValues() {
        let key = OTLPProtobufBytes.field(1, Array("k".utf8))
        let cases: [(OTLPAttributeValue, [UInt8])] = [
            (.string(""), OTLPProtobufBytes.field(1, [])),
            (.string("é🚀"), OTLPProtobufBytes.field(1, Array("é🚀".utf8))),
            (.string(String(repeating: "x", count: 200)), OTLPProtobufBytes.field(1, [UInt8](repeating: 0x78, count: 200))),
            (.bool(false), OTLPProtobufBytes.varintField(2, 0)), (.bool(true), OTLPProtobufBytes.varintField(2, 1)),
            (.int(0), OTLPProtobufBytes.varintField(3, 0)), (.int(300), OTLPProtobufBytes.varintField(3, 300)),
            (.int(.min), OTLPProtobufBytes.varintField(3, UInt64(bitPattern: .min))),
            (.int(-1), OTLPProtobufBytes.varintField(3, .max)),
            (.double(-0.0), OTLPProtobufBytes.fixed64Field(4, (-0.0).bitPattern)),
            (.double(.pi), OTLPProtobufBytes.fixed64Field(4, Double.pi.bitPattern)),
            (.bytes([]), OTLPProtobufBytes.field(7, [])), (.bytes([0, 0xFF]), OTLPProtobufBytes.field(7, [0, 0xFF])),
            (.empty, []),
        ]
        for (value, anyValue) in cases {
            let keyValue = key + OTLPProtobufBytes.field(2, anyValue)
            let encoded = OTLPEncoder().encode(
                OTLPTracesData(
                    resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"),
                    items: [span(name: "v", attributes: [OTLPAttribute("k", value)])]))
            // The span's attributes field (9) holds exactly these KeyValue bytes.
            let field = OTLPProtobufBytes.field(9, keyValue)
            let found = encoded.indices.contains { start in encoded[start...].starts(with: field) }
            #expect(found, "\(value)")
        }
    }

    @Test("nesting at the decoder's limit encodes, and one level more is refused on decoding")
    func nesting() throws {
        // A span attribute's AnyValue is level 5; each array level adds 2: 5 + 2 * 47 = 99, + 1 for the innermost value.
        func nested(_ depth: Int) -> OTLPAttributeValue { depth == 0 ? .int(1) : .array([nested(depth - 1)]) }
        let atLimit = OTLPTracesData(
            resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"),
            items: [span(name: "deep", attributes: [OTLPAttribute("v", nested(47))])])
        try roundTrip(atLimit)
        let tooDeep = OTLPTracesData(
            resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"),
            items: [span(name: "deep", attributes: [OTLPAttribute("v", nested(48))])])
        #expect(throws: OTLPReadError.self) { try OTLPDecoder().decodeTraces(OTLPEncoder().encode(tooDeep)) }
        do {
            _ = try OTLPDecoder().decodeTraces(OTLPEncoder().encode(tooDeep))
        } catch {
            #expect(error.code == .nestingTooDeep)
        }
    }

    @Test("logs: every field, body of any kind or none")
    func logs() throws {
        let data = SampleTelemetry.logs(30)
        let decoded = try OTLPDecoder().decodeLogs(OTLPEncoder().encode(data))
        #expect(OTLPJSONEncoder().encode(decoded) == OTLPJSONEncoder().encode(data))
    }
}
