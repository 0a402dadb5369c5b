import Foundation
import Testing
@testable import OTLPWire

/// The record writer never traps: a record its framing cannot hold is a write error, and nothing of it
/// reaches the sink.
@Suite("OTLPRecordWriter framing limits")
struct OTLPFrameWriterFramingLimitTests {
    @Test("a u32be prefix over 4 GiB is refused with an error, not a trap (checked without allocating 4 GiB)")
    func u32beOver4GiB() throws {
        #expect(try OTLPRecordWriter.lengthPrefix(messageBytes: Int(UInt32.max), framing: .u32be) == [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(try OTLPRecordWriter.lengthPrefix(messageBytes: 300, framing: .u32be) == [0, 0, 1, 0x2C])
        for length in [Int(UInt32.max) + 1, 70 << 30, Int.max] {
            #expect {
                try OTLPRecordWriter.lengthPrefix(messageBytes: length, framing: .u32be)
            } throws: { error in
                let error = error as! OTLPWriteError
                guard error.code == .unframeable else { return false }
                return error.message.contains("\(length) bytes") && error.message.contains("u32be")
            }
        }
        #expect(throws: OTLPWriteError.self) { try OTLPRecordWriter.lengthPrefix(messageBytes: -1, framing: .varint) }
    }

    @Test("varint prefixes hold any length; jsonl and unframed have none")
    func otherPrefixes() throws {
        #expect(try OTLPRecordWriter.lengthPrefix(messageBytes: 300, framing: .varint) == [0xAC, 0x02])
        #expect(try OTLPRecordWriter.lengthPrefix(messageBytes: Int(UInt32.max) + 1, framing: .varint) == [0x80, 0x80, 0x80, 0x80, 0x10])
        #expect(try OTLPRecordWriter.lengthPrefix(messageBytes: Int.max, framing: .varint).count == 9)
        #expect(try OTLPRecordWriter.lengthPrefix(messageBytes: Int.max, framing: .jsonl).isEmpty)
    }

    @Test("a JSON record with a newline in it is refused before anything is written")
    func jsonNewline() throws {
        let sink = OTLPMemorySink()
        let writer = OTLPRecordWriter(sink: sink, framing: .jsonl)
        let bytes = Array("{\"resourceSpans\":\n[]}".utf8)
        #expect(throws: OTLPWriteError.self) {
            try bytes.withUnsafeBytes { raw in Result { () throws(OTLPWriteError) in try writer.writeEncoded(raw) } }.get()
        }
        #expect(sink.bytes.isEmpty && writer.recordsWritten == 0)
        // The writer still works afterwards.
        try writer.write(SampleTelemetry.traces(2))
        let reader = try OTLPRecordReader(source: OTLPMemorySource(sink.bytes))
        #expect(try reader.next()?.payload.itemCount == 2)
    }

    @Test("a compression level out of 0...9 is clamped: the output is still valid gzip", arguments: [Int32(-5), 42, .max])
    func compressionLevel(level: Int32) throws {
        let sink = OTLPMemorySink()
        let writer = OTLPRecordWriter(sink: sink, gzip: true, compressionLevel: level)
        try writer.write(SampleTelemetry.traces(3))
        try writer.close()
        let reader = try OTLPRecordReader(source: OTLPMemorySource(sink.bytes))
        #expect(reader.isCompressed)
        #expect(try reader.next()?.payload.itemCount == 3)
    }
}
