#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import OTLPWire

/// The one length-prefix codec, and every way a prefix can overflow: from memory, a trickling source, a real
/// pipe, with and without the framing given. Nothing may trap; each case names its error class.
@Suite("Length prefixes: one codec, overflow-checked")
struct OTLPLengthPrefixTests {
    @Test(
        "encode then decode gives the length back, for both framings",
        arguments: [0, 1, 127, 128, 300, 16_383, 16_384, 1 << 21, Int(UInt32.max)])
    func roundTrip(length: Int) {
        for framing in [OTLPFraming.u32be, .varint] {
            var bytes: [UInt8] = []
            #expect(OTLPLengthPrefix.encode(length, framing: framing, into: &bytes))
            #expect(OTLPLengthPrefix.decode(bytes, framing: framing) == .length(UInt64(length), prefixBytes: bytes.count))
            #expect(OTLPLengthPrefix.decode(bytes.dropLast(), framing: framing) == .incomplete)
        }
    }

    @Test("varint encodes any Int (Int.max takes 9 bytes); u32be refuses lengths past 4 GiB - 1 instead of trapping")
    func encodeLimits() {
        var bytes: [UInt8] = []
        #expect(OTLPLengthPrefix.encode(Int.max, framing: .varint, into: &bytes))
        #expect(bytes.count == 9)
        #expect(OTLPLengthPrefix.decode(bytes, framing: .varint) == .length(UInt64(Int.max), prefixBytes: 9))
        var u32: [UInt8] = []
        #expect(!OTLPLengthPrefix.encode(Int(UInt32.max) + 1, framing: .u32be, into: &u32))
        #expect(!OTLPLengthPrefix.encode(-1, framing: .varint, into: &u32))
        #expect(u32.isEmpty)
    }

    @Test("10-byte varints: 2^64 - 1 is a length (too large later), a 10th byte over 1 is past 64 bits; 11 bytes are too long")
    func tenAndElevenBytes() {
        let nines = [UInt8](repeating: 0xFF, count: 9)
        #expect(OTLPLengthPrefix.decode(nines + [0x01], framing: .varint) == .length(UInt64.max, prefixBytes: 10))
        #expect(OTLPLengthPrefix.decode([UInt8](repeating: 0x80, count: 9) + [0x01], framing: .varint) == .length(1 << 63, prefixBytes: 10))
        guard case .invalid(let past) = OTLPLengthPrefix.decode(nines + [0x7F], framing: .varint) else { Issue.record("accepted"); return }
        #expect(past.contains("64 bits"))
        guard case .invalid(let long) = OTLPLengthPrefix.decode(nines + [0xFF, 0x01], framing: .varint) else {
            Issue.record("accepted"); return
        }
        #expect(long.contains("longer than 10 bytes"))
        #expect(OTLPLengthPrefix.decode(nines, framing: .varint) == .incomplete)
    }

    /// Hostile prefixes, each after one good record, with the error class the reader must give.
    static let hostile: [(name: String, bytes: [UInt8], framing: OTLPFraming, kind: OTLPReadError.Code)] = [
        ("10-byte varint 2^64-1", [UInt8](repeating: 0xFF, count: 9) + [0x01], .varint, .recordTooLarge),
        ("10-byte varint 2^63 (past Int.max)", [UInt8](repeating: 0x80, count: 9) + [0x01], .varint, .recordTooLarge),
        ("10-byte varint past 64 bits", [UInt8](repeating: 0xFF, count: 9) + [0x7F], .varint, .badLengthPrefix),
        ("11-byte varint", [UInt8](repeating: 0xFF, count: 10) + [0x01], .varint, .badLengthPrefix),
        ("varint just past the frame limit", varint(1024 + 1), .varint, .recordTooLarge),
        ("varint cut inside", [0xFF, 0xFF], .varint, .truncatedLengthPrefix),
        ("u32be 0xFFFFFFFF", [0xFF, 0xFF, 0xFF, 0xFF], .u32be, .recordTooLarge),
        ("u32be just past the frame limit", [0x00, 0x00, 0x04, 0x01], .u32be, .recordTooLarge),
        ("u32be cut inside", [0x00, 0x00], .u32be, .truncatedLengthPrefix),
    ]

    static func varint(_ value: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        _ = OTLPLengthPrefix.encode(value, framing: .varint, into: &bytes)
        return bytes
    }

    static let good = OTLPEncoder().encode(SampleTelemetry.traces(2))

    @Test(
        "hostile prefixes after a good record: the record, then the located error; from memory, 1 byte at a time and a pipe",
        arguments: 0..<hostile.count)
    func hostilePrefixes(index: Int) {
        let (name, prefix, framing, kind) = Self.hostile[index]
        let goodRecord = framing == .u32be ? StreamInputs.u32be([Self.good]) : StreamInputs.varint([Self.good])
        let bytes = goodRecord + prefix + [UInt8](repeating: 0x0A, count: 16)
        let cut = kind == .truncatedLengthPrefix ? goodRecord + prefix : bytes
        let options = OTLPReaderOptions(framing: framing, decoding: OTLPDecodingOptions(maxRecordBytes: max(1024, Self.good.count)))
        let (pipe, descriptor) = StreamInputs.pipe(cut)
        defer { close(descriptor) }
        for (source, label) in [
            (OTLPMemorySource(cut) as any OTLPByteSource, "memory"), (StreamInputs.TrickleSource(cut), "trickle"), (pipe, "pipe"),
        ] {
            let outcome = StreamInputs.read(source, options: options)
            #expect(outcome.records.count == 1, "\(name) via \(label)")
            #expect(outcome.error?.code == kind, "\(name) via \(label): \(String(describing: outcome.error))")
            #expect(outcome.error?.recordIndex == 1)
            #expect(outcome.error?.byteOffset == goodRecord.count)
        }
    }

    @Test("the 10-byte file ff×9 01 with nothing given: a located error, no trap, from memory, a trickle and a pipe")
    func detectionOnOverflowingVarint() {
        for bytes in [
            [UInt8](repeating: 0xFF, count: 9) + [0x01], [UInt8](repeating: 0xFF, count: 10) + [0x01],
            [UInt8](repeating: 0xFF, count: 9) + [0x7F], [UInt8](repeating: 0x80, count: 9) + [0x01],
        ] {
            let (pipe, descriptor) = StreamInputs.pipe(bytes)
            defer { close(descriptor) }
            for source in [OTLPMemorySource(bytes) as any OTLPByteSource, StreamInputs.TrickleSource(bytes), pipe] {
                let outcome = StreamInputs.read(source)
                #expect(outcome.records.isEmpty)
                let error = outcome.error
                #expect(error != nil, "\(bytes) read as valid")
                #expect([.recordTooLarge, .badLengthPrefix, .truncatedRecord].contains(error?.code), "\(String(describing: error))")
                #expect(error?.recordIndex == 0 && error?.byteOffset == 0)
            }
        }
    }

    @Test(
        "a frame limit of Int.max is refused as invalid options; at the largest valid limit, huge declared lengths are refused (no overflow), not a trap"
    )
    func unlimitedFrames() {
        let unlimited = StreamInputs.read(
            [0x01, 0x00], options: OTLPReaderOptions(framing: .varint, decoding: OTLPDecodingOptions(maxRecordBytes: .max)))
        #expect(unlimited.error?.code == .invalidOptions)
        let largest = OTLPDecodingOptions.maxRecordBytesRange.upperBound
        let options = OTLPReaderOptions(framing: .varint, decoding: OTLPDecodingOptions(maxRecordBytes: largest))
        let outcome = StreamInputs.read([UInt8](repeating: 0xFF, count: 8) + [0x7F], options: options)
        #expect(outcome.error?.code == .recordTooLarge)
        var atLimit: [UInt8] = []
        #expect(OTLPLengthPrefix.encode(largest, framing: .varint, into: &atLimit))
        let smaller = StreamInputs.read(atLimit + [0x01], options: options)
        #expect(smaller.error?.code == .truncatedRecord)
        let u32Options = OTLPReaderOptions(framing: .u32be, decoding: OTLPDecodingOptions(maxRecordBytes: largest))
        #expect(StreamInputs.read([0xFF, 0xFF, 0xFF, 0xFF, 0x01], options: u32Options).error?.code == .recordTooLarge)
        #expect(StreamInputs.read([0x7F, 0xFF, 0xFF, 0xFF, 0x01], options: u32Options).error?.code == .truncatedRecord)
    }

    @Test("the writer's prefixes are the codec's: a varint file of records of 0, 127, 128 and 20,000 bytes reads back")
    func writerUsesCodec() throws {
        let sink = OTLPMemorySink()
        let writer = OTLPRecordWriter(sink: sink, framing: .varint)
        for message in [[UInt8](), [UInt8](repeating: 0, count: 0)] { try message.withUnsafeBytes { try writer.writeEncoded($0) } }
        for spans in [1, 3, 40] { try writer.write(SampleTelemetry.traces(spans)) }
        let outcome = StreamInputs.read(sink.bytes, options: OTLPReaderOptions(framing: .varint, signal: .traces))
        #expect(outcome.error == nil)
        #expect(outcome.records.map(\.payload.itemCount) == [0, 0, 1, 3, 40])
    }
}
