import Testing
@testable import OTLPWire

/// Every way protobuf-c 1.4.1's unpack can refuse an OTLP request, each refused by the pre-scan too (validate
/// trusts the scan's verdict and no longer unpacks), with the error located where the fault lies, and the same
/// error from validation and from decoding. Also the few inputs protobuf-c accepts and the scan refuses (it is
/// stricter, never looser).
@Suite("What protobuf-c refuses, the pre-scan refuses")
struct ProtobufCRefusalTests {
    /// Field `number` of wire type 2 holding `children`.
    static func message(_ number: UInt64, _ children: [WireField], tagBytes: Int = 0, lengthBytes: Int = 0) -> WireField {
        WireField(number: number, wire: 2, value: [], children: children, tagBytes: tagBytes, lengthBytes: lengthBytes)
    }

    static func bytes(_ number: UInt64, _ value: [UInt8], wire: UInt8 = 2, tagBytes: Int = 0, lengthBytes: Int = 0) -> WireField {
        WireField(number: number, wire: wire, value: value, children: nil, tagBytes: tagBytes, lengthBytes: lengthBytes)
    }

    /// A traces request with one span made of `spanFields`.
    static func traces(_ spanFields: [WireField]) -> [UInt8] {
        WireField.encode([message(1, [message(2, [message(2, spanFields)])])])
    }

    /// A metrics request with one metric named "m" whose data is `data`.
    static func metrics(_ data: WireField) -> [UInt8] {
        WireField.encode([message(1, [message(2, [message(2, [bytes(1, Array("m".utf8)), data])])])])
    }

    static let traceID = [UInt8](repeating: 1, count: 16)
    static let spanID = [UInt8](repeating: 2, count: 8)

    /// The offset of `needle` in `haystack` (the first occurrence).
    static func offset(of needle: [UInt8], in haystack: [UInt8]) -> Int {
        haystack.indices.first { haystack[$0...].starts(with: needle) }!
    }

    /// Expects protobuf-c to refuse `request` as `signal`, the scan to refuse it at `byteOffset` with `message`,
    /// and validation and decoding of it in a u32be file to give the same error.
    static func expectRefused(
        _ request: [UInt8], as signal: OTLPSignal, at byteOffset: Int, _ message: String, code: OTLPReadError.Code = .malformedProtobuf,
        options: OTLPDecodingOptions = .default, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let unpacked = request.withUnsafeBytes { ScanUnpackAgreementTests.unpackedItems($0, as: signal) }
        #expect(unpacked == nil, "protobuf-c unpacks it", sourceLocation: sourceLocation)
        let error = request.withUnsafeBytes { buffer in
            #expect(throws: OTLPReadError.self, sourceLocation: sourceLocation) {
                try OTLPDecoder(options: options).check(buffer, as: signal)
            }
        }
        #expect(error?.code == code, sourceLocation: sourceLocation)
        #expect(error?.byteOffset == byteOffset, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.message.contains(message) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
        guard options == .default else { return }
        let (print, validate) = ValidationDepthTests.verdicts(
            StreamInputs.u32be([request]), options: OTLPReaderOptions(framing: .u32be, signal: signal))
        #expect(validate.error != nil && validate == print, "validate \(validate), print \(print)", sourceLocation: sourceLocation)
    }

    /// Expects both protobuf-c and the scan to accept `request` as `signal`, with `items` items.
    static func expectAccepted(_ request: [UInt8], as signal: OTLPSignal, items: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let unpacked = request.withUnsafeBytes { ScanUnpackAgreementTests.unpackedItems($0, as: signal) }
        #expect(unpacked == items, sourceLocation: sourceLocation)
        let checked = request.withUnsafeBytes { try? OTLPDecoder().check($0, as: signal) }
        #expect(checked == items, sourceLocation: sourceLocation)
    }

    @Test("a tag of more than 5 bytes (an overlong encoding of a small number): refused where it starts; 5 bytes are read")
    func overlongTag() {
        // The request's own field, a resource's, and a span's name (the scan's shortcut for strings).
        let top = WireField.encode([Self.message(1, [], tagBytes: 6)])
        Self.expectRefused(top, as: .traces, at: 0, "not a valid traces request")
        let nested = WireField.encode([Self.message(1, [Self.message(1, [], tagBytes: 6)])])
        Self.expectRefused(nested, as: .traces, at: 2, "not a valid traces request")
        let name = Self.bytes(5, Array("span".utf8), tagBytes: 6)
        let span = Self.traces([Self.bytes(1, Self.traceID), Self.bytes(2, Self.spanID), name])
        Self.expectRefused(
            span, as: .traces, at: Self.offset(of: [0xAA, 0x80, 0x80, 0x80, 0x80, 0x00], in: span), "not a valid traces request")
        Self.expectAccepted(WireField.encode([Self.message(1, [], tagBytes: 5)]), as: .traces, items: 0)
        Self.expectAccepted(
            Self.traces([Self.bytes(1, Self.traceID), Self.bytes(5, Array("span".utf8), tagBytes: 5)]), as: .traces, items: 1)
    }

    @Test("a length prefix of more than 5 bytes: refused where its field starts, in messages, strings and attributes alike")
    func overlongLength() {
        Self.expectRefused(WireField.encode([Self.message(1, [], lengthBytes: 6)]), as: .traces, at: 0, "not a valid traces request")
        // An attribute of the common shape (key, then a string value), its key's length overlong: the scan's
        // shortcut for such attributes leaves it to the long way, which refuses it.
        let attribute = Self.message(
            9, [Self.bytes(1, Array("key".utf8), lengthBytes: 6), Self.message(2, [Self.bytes(1, Array("v".utf8))])])
        let span = Self.traces([Self.bytes(1, Self.traceID), attribute])
        Self.expectRefused(
            span, as: .traces, at: Self.offset(of: [0x0A, 0x83, 0x80, 0x80, 0x80, 0x80, 0x00], in: span), "not a valid traces request")
        let name = Self.traces([Self.bytes(1, Self.traceID), Self.bytes(5, Array("span".utf8), lengthBytes: 6)])
        Self.expectRefused(name, as: .traces, at: Self.offset(of: [0x2A, 0x84, 0x80], in: name), "not a valid traces request")
        Self.expectAccepted(
            Self.traces([Self.bytes(1, Self.traceID), Self.bytes(5, Array("span".utf8), lengthBytes: 5)]), as: .traces, items: 1)
    }

    @Test("packed fixed64 bucket counts and double bounds whose length is not a multiple of 8")
    func packedFixedLength() {
        for (field, length) in [(6, 7), (6, 9), (7, 12), (7, 1)] as [(UInt64, Int)] {
            let point = Self.bytes(field, [UInt8](repeating: 0, count: length))
            let request = Self.metrics(Self.message(9, [Self.message(1, [point])]))
            let at = Self.offset(of: [UInt8(field << 3 | 2), UInt8(length)] + [UInt8](repeating: 0, count: length), in: request)
            Self.expectRefused(request, as: .metrics, at: at, "not a valid metrics request")
        }
        let whole = Self.metrics(Self.message(9, [Self.message(1, [Self.bytes(6, [UInt8](repeating: 0, count: 16))])]))
        Self.expectAccepted(whole, as: .metrics, items: 1)
    }

    @Test("packed varint bucket counts that end inside a varint or hold one of more than 10 bytes")
    func packedVarints() {
        func request(_ counts: [UInt8]) -> [UInt8] {
            Self.metrics(Self.message(10, [Self.message(1, [Self.message(8, [Self.bytes(2, counts)])])]))
        }
        for counts in [[0x80], [0x01, 0x81], [UInt8](repeating: 0xFF, count: 10) + [0x01]] as [[UInt8]] {
            let bytes = request(counts)
            Self.expectRefused(
                bytes, as: .metrics, at: Self.offset(of: [0x12, UInt8(counts.count)] + counts, in: bytes), "not a valid metrics request")
        }
        Self.expectAccepted(request([0x01, 0x02] + [UInt8](repeating: 0xFF, count: 9) + [0x01]), as: .metrics, items: 1)
    }

    @Test("a varint value of more than 10 bytes, or cut short; a fixed32 or fixed64 value cut short; a length past the end")
    func truncatedValues() {
        let elevenBytes = Self.traces([Self.bytes(1, Self.traceID), Self.bytes(6, [UInt8](repeating: 0x81, count: 10) + [0x01], wire: 0)])
        Self.expectRefused(elevenBytes, as: .traces, at: Self.offset(of: [0x30, 0x81], in: elevenBytes), "not a valid traces request")
        Self.expectAccepted(
            Self.traces([Self.bytes(1, Self.traceID), Self.bytes(6, [UInt8](repeating: 0x81, count: 9) + [0x01], wire: 0)]), as: .traces,
            items: 1)
        // Cut short at the end of the request: the enclosing lengths still fit, the value does not.
        for (tag, value) in [(0x30 as UInt8, [0x81] as [UInt8]), (0x85, [1, 2, 3]), (0x39, [1, 2, 3, 4, 5, 6, 7])] {
            var request = Self.traces([Self.bytes(1, Self.traceID)])
            let field = tag == 0x85 ? [0x85, 0x01] + value : [tag] + value
            request += field
            // The fields after the request's own: read as the request's fields (field 6, 16, 7: unknown there).
            let unpacked = request.withUnsafeBytes { ScanUnpackAgreementTests.unpackedItems($0, as: .traces) }
            #expect(unpacked == nil)
            let scanned = request.withUnsafeBytes { try? OTLPDecoder().check($0, as: .traces) }
            #expect(scanned == nil)
        }
        let pastEnd: [UInt8] = [0x0A, 0x05, 0x0A, 0x00]
        Self.expectRefused(pastEnd, as: .traces, at: 0, "not a valid traces request")
    }

    @Test("a known field of another wire type (string, enum, fixed64, fixed32, message, repeated message)")
    func mismatchedWireTypes() {
        let cases: [WireField] = [
            Self.bytes(5, [0x01], wire: 0),  // name: string as a varint
            Self.bytes(6, [0x01], wire: 2),  // kind: enum as bytes
            Self.bytes(7, [0x01], wire: 0),  // start time: fixed64 as a varint
            Self.bytes(16, [1, 0, 0, 0, 0, 0, 0, 0], wire: 1),  // flags: fixed32 as fixed64
            Self.bytes(15, [0x01], wire: 0),  // status: a message as a varint
            Self.bytes(9, [0, 0, 0, 0], wire: 5),  // attributes: repeated messages as fixed32
        ]
        for field in cases {
            let request = Self.traces([Self.bytes(1, Self.traceID), field])
            var written: [UInt8] = []
            field.write(to: &written)
            Self.expectRefused(
                request, as: .traces, at: Self.offset(of: Array(written.prefix(2)), in: Array(request.dropFirst(6))) + 6,
                "mismatched wire type for a known field")
        }
    }

    @Test("groups (wire types 3 and 4), the wire types 6 and 7 that do not exist, field number 0")
    func groupsAndUnknownWireTypes() {
        Self.expectRefused([0x0B, 0x0C], as: .traces, at: 0, "group")  // field 1 as a group, ended
        Self.expectRefused([0x7B, 0x7C], as: .traces, at: 0, "group")  // unknown field 15 as a group
        Self.expectRefused([0x0C], as: .traces, at: 0, "not a valid traces request")
        Self.expectRefused([0x0E, 0x00], as: .traces, at: 0, "not a valid traces request")
        Self.expectRefused([0x0F, 0x00], as: .traces, at: 0, "not a valid traces request")
        // Field number 0 (protobuf-c 1.4.1 refuses it too).
        Self.expectRefused([0x0A, 0x00, 0x00, 0x00], as: .traces, at: 2, "not a valid traces request")
    }

    @Test("stricter than protobuf-c: a bool of another wire type, a string not UTF-8, an ID of the wrong length")
    func stricterThanProtobufC() {
        // protobuf-c reads a bool from any wire type, copies any bytes into a string and takes an ID of any
        // length; the scan refuses all three, which only makes validate stricter.
        let stricter: [[UInt8]] = [
            Self.traces([
                Self.bytes(1, Self.traceID),
                Self.message(9, [Self.bytes(1, Array("k".utf8)), Self.message(2, [Self.bytes(2, [1, 0, 0, 0, 0, 0, 0, 0], wire: 1)])]),
            ]),
            Self.traces([Self.bytes(1, Self.traceID), Self.bytes(5, [0xFF, 0xFE])]),
            Self.traces([Self.bytes(1, [UInt8](repeating: 1, count: 5))]),
        ]
        for (index, request) in stricter.enumerated() {
            let unpacked = request.withUnsafeBytes { ScanUnpackAgreementTests.unpackedItems($0, as: .traces) }
            #expect(unpacked != nil, "case \(index): \(request)")
            let scanned = request.withUnsafeBytes { try? OTLPDecoder().check($0, as: .traces) }
            #expect(scanned == nil)
        }
    }

    @Test("a message of more fields than protobuf-c unpacks (134,217,712): refused where it ends")
    func tooManyFields() {
        // 2^27 (134,217,728) unknown fields of two bytes (field 15, varint 0) in the request itself: 268 MB, under
        // raised limits only (the default record limit is 8 MiB). protobuf-c's slabs would need 4 GiB to refuse
        // it, so only the scan is run.
        var request: [UInt8] = [0x78, 0x00]
        request.reserveCapacity(2 << 27)
        for _ in 0..<27 { request.append(contentsOf: request) }
        let options = OTLPDecodingOptions(
            maxRecordBytes: OTLPDecodingOptions.maxRecordBytesRange.upperBound,
            maxDecodedBytes: OTLPDecodingOptions.maxDecodedBytesRange.upperBound)
        let error = request.withUnsafeBytes { buffer in
            #expect(throws: OTLPReadError.self) { try OTLPDecoder(options: options).check(buffer, as: .traces) }
        }
        #expect(error?.code == .recordTooLarge)
        #expect(error?.byteOffset == request.count)
        #expect(error?.message.contains("more than 134,217,712 fields") == true, "\(String(describing: error))")
    }
}
