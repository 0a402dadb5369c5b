import OTLPWire
import Testing

@testable import OTLPTelemetry

/// A span's journal record written field by field (the journal's hot path) is byte for byte what the encoder
/// makes of the record's request, framed: records read back as any other.
@Suite("Open-span journal: records written directly")
struct OTLPSpanJournalRecordFramingTests {
    /// The record through the model and the encoder, u32be-framed; `nil` over `maxRecordBytes`.
    static func throughEncoder(_ record: OTLPSpanJournalRecord, maxRecordBytes: Int = .max) -> [UInt8]? {
        let encoded = OTLPEncoder().encode(record.request)
        guard encoded.count <= maxRecordBytes else { return nil }
        var framed: [UInt8] = []
        _ = OTLPLengthPrefix.encode(encoded.count, framing: .u32be, into: &framed)
        return framed + encoded
    }

    static let everyField = OTLPSpan(
        traceID: OTLPTraceID(high: 0x0102_0304_0506_0708, low: 0x090A_0B0C_0D0E_0F10), spanID: OTLPSpanID(0xFFEE_DDCC_BBAA_0099),
        parentSpanID: OTLPSpanID(7), name: "HTTP GET /cart ü", kind: .server, startTimeUnixNano: 1_700_000_000_000_000_001,
        endTimeUnixNano: 1_700_000_000_500_000_000,
        attributes: [
            OTLPAttribute("string", "value"), OTLPAttribute("empty string", ""), OTLPAttribute("bool", true),
            OTLPAttribute("false", false), OTLPAttribute("int", 200), OTLPAttribute("zero", 0), OTLPAttribute("negative", .int(-5)),
            OTLPAttribute("double", 0.25), OTLPAttribute("negative zero", .double(-0.0)), OTLPAttribute("bytes", .bytes([0, 1, 0xFF])),
            OTLPAttribute("no bytes", .bytes([])), OTLPAttribute("array", .array(["a", 1, .array([true, .empty])])),
            OTLPAttribute("list", .keyValueList([OTLPAttribute("inner", 1.5), OTLPAttribute("", "no key"), OTLPAttribute("none", nil)])),
            OTLPAttribute("empty", .empty), OTLPAttribute("nil", nil), OTLPAttribute("", "empty key"),
            OTLPAttribute("long", .string(String(repeating: "x", count: 300))),
        ],
        events: [
            OTLPSpanEvent(name: "exception", timeUnixNano: 1_700_000_000_100_000_000, attributes: [OTLPAttribute("exception.type", "E")]),
            OTLPSpanEvent(name: "", timeUnixNano: 0, droppedAttributesCount: 3),
        ],
        links: [
            OTLPSpanLink(
                traceID: OTLPTraceID(high: 1, low: 2), spanID: OTLPSpanID(3), traceState: "k=v", attributes: [OTLPAttribute("a", 1)]),
            OTLPSpanLink(traceID: nil, spanID: nil, droppedAttributesCount: 2, flags: 0x301),
        ],
        status: OTLPSpanStatus(code: .error, message: "the process ended before the span ended"), traceState: "vendor=1", flags: 0x101,
        droppedAttributesCount: 4, droppedEventsCount: 5, droppedLinksCount: 6)

    static let scope = OTLPInstrumentationScope(
        name: "test.launch", version: "1.2", attributes: [OTLPAttribute("scope.attribute", 1)], droppedAttributesCount: 2)

    @Test(
        "every field and attribute kind, started and ended, with and without the interrupted attribute: the encoder's bytes",
        arguments: [OTLPSpanJournalRecord.Kind.started, .ended], [nil, "launch.interrupted"])
    func sameBytes(kind: OTLPSpanJournalRecord.Kind, interruptedAttribute: String?) throws {
        let record = OTLPSpanJournalRecord(
            kind: kind, writtenUnixNano: 1_700_000_000_123_456_789, scopedSpan: (Self.scope, Self.everyField),
            interruptedAttribute: interruptedAttribute)
        let direct = try #require(record.framed(maxRecordBytes: .max))
        #expect(direct == Self.throughEncoder(record))
        // Read back as a journal record of this span.
        let payload = try direct.dropFirst(4).withUnsafeBytes { try OTLPDecoder().decodeTraces($0) }
        guard case .record(let decoded) = OTLPSpanJournalRecord.decode(payload) else {
            Issue.record("not read back as a record: \(OTLPSpanJournalRecord.decode(payload))")
            return
        }
        #expect(decoded.kind == kind && decoded.interruptedAttribute == interruptedAttribute)
        #expect(decoded.writtenUnixNano == record.writtenUnixNano && decoded.scopedSpan?.span.spanID == Self.everyField.spanID)
    }

    @Test("a span with nothing but its IDs, an empty status, odd enum values, times 0 and the largest: the encoder's bytes")
    func edgeValues() throws {
        let spans = [
            OTLPSpan(
                traceID: OTLPTraceID(high: 0, low: 1), spanID: OTLPSpanID(1), name: "", kind: .unspecified, startTimeUnixNano: 0,
                endTimeUnixNano: 0),
            OTLPSpan(
                traceID: OTLPTraceID(high: 0, low: 1), spanID: OTLPSpanID(1), name: "odd", kind: OTLPSpanKind(rawValue: -1),
                startTimeUnixNano: .max, endTimeUnixNano: .max, status: OTLPSpanStatus(code: OTLPSpanStatus.Code(rawValue: -7))),
            OTLPSpan(
                traceID: OTLPTraceID(high: 0, low: 1), spanID: OTLPSpanID(1), name: "unset status", startTimeUnixNano: 1,
                endTimeUnixNano: 2,
                status: OTLPSpanStatus(code: .unset)),
        ]
        for (index, span) in spans.enumerated() {
            for written: UInt64 in [0, 1, .max] {
                let record = OTLPSpanJournalRecord(
                    kind: .started, writtenUnixNano: written, scopedSpan: (OTLPInstrumentationScope(name: ""), span))
                #expect(record.framed(maxRecordBytes: .max) == Self.throughEncoder(record), "span \(index), written \(written)")
            }
        }
    }

    @Test("the journal's other records (exporting, exported, alive with a resource, a recovered span's): the encoder's bytes")
    func otherRecords() {
        let ids = (1...3).map {
            OTLPSpan(
                traceID: OTLPTraceID(high: 9, low: UInt64($0)), spanID: OTLPSpanID(UInt64($0)), name: "", startTimeUnixNano: 0,
                endTimeUnixNano: 0)
        }
        let resource = OTLPResource(
            attributes: [OTLPAttribute("service.name", "app"), OTLPAttribute("process.pid", 41)], droppedAttributesCount: 1)
        let records = [
            OTLPSpanJournalRecord(kind: .exporting, writtenUnixNano: 5, exportedSpans: ids),
            OTLPSpanJournalRecord(kind: .exported, writtenUnixNano: 6, exportedSpans: ids),
            OTLPSpanJournalRecord(kind: .alive, writtenUnixNano: 7),
            OTLPSpanJournalRecord(kind: .alive, writtenUnixNano: 8, resource: resource),
            OTLPSpanJournalRecord(
                kind: .ended, writtenUnixNano: 9, resource: resource, scopedSpan: (Self.scope, Self.everyField),
                interruptedAttribute: "view.interrupted"),
        ]
        for record in records {
            #expect(record.framed(maxRecordBytes: .max) == Self.throughEncoder(record), "\(record.kind)")
        }
    }

    @Test("a record over maxRecordBytes is not written, at the same size as the encoder's")
    func tooLarge() throws {
        let record = OTLPSpanJournalRecord(kind: .ended, writtenUnixNano: 1, scopedSpan: (Self.scope, Self.everyField))
        let size = try #require(Self.throughEncoder(record)).count - 4
        #expect(record.framed(maxRecordBytes: size)?.count == size + 4)
        #expect(record.framed(maxRecordBytes: size - 1) == nil)
    }
}
