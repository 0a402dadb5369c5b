import Testing
@testable import OTLPWire

/// The record buffer grows with the bytes that arrive, not with the length a prefix declares, also when the
/// source delivers little per read (a pipe gives about 64 KiB).
@Suite("OTLPRawRecordReader memory")
struct OTLPRecordReaderMemoryTests {
    @Test(
        "a prefix declaring 2 GiB followed by 10 MB in 64 KiB reads: truncated_record, the buffer at most twice what arrived",
        arguments: [OTLPFraming.u32be, .varint])
    func bufferFollowsArrivals(framing: OTLPFraming) {
        let arrived = 10 << 20
        var bytes: [UInt8] = []
        #expect(OTLPLengthPrefix.encode(OTLPDecodingOptions.maxRecordBytesRange.upperBound, framing: framing, into: &bytes))
        bytes += [UInt8](repeating: 0, count: arrived)
        let reader = OTLPRawRecordReader(
            source: StreamInputs.TrickleSource(bytes, step: 64 * 1024), framing: framing,
            maxRecordBytes: OTLPDecodingOptions.maxRecordBytesRange.upperBound)
        #expect { try reader.next() } throws: { ($0 as? OTLPReadError)?.code == .truncatedRecord }
        #expect(reader.bufferBytes <= 2 * arrived + 256 * 1024, "\(reader.bufferBytes) bytes of buffer for \(arrived) arrived")
    }
}
