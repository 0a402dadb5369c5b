#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import OTLPWire
import OTLPTestSupport

/// Detection never turns damage into a valid verdict: a file cut at any byte, read with nothing given (as
/// standard input is), reports the cut after the records before it.
@Suite("Detection on cut-off and long-lined input")
struct DetectionDamageTests {
    /// Records of 0, 60 (under 128: its u32be prefix also reads as varint) and a few hundred bytes.
    static let messages: [[UInt8]] = [
        OTLPEncoder().encode(SampleTelemetry.traces(1)),
        Wire.traces([
            OTLPProtobufBytes.field(1, [UInt8](repeating: 1, count: 16)) + OTLPProtobufBytes.field(2, [UInt8](repeating: 2, count: 8))
                + OTLPProtobufBytes.field(3, Array("small".utf8))
        ]),
        [],
        OTLPEncoder().encode(SampleTelemetry.traces(2)),
    ]

    /// Record boundaries of a framed file (the cut positions that leave a shorter valid file).
    static func boundaries(_ framing: OTLPFraming) -> [Int] {
        var positions = [0]
        for message in messages {
            var prefix: [UInt8] = []
            _ = OTLPLengthPrefix.encode(message.count, framing: framing, into: &prefix)
            positions.append(positions.last! + prefix.count + message.count)
        }
        return positions
    }

    @Test(
        "a u32be or varint file cut at any byte inside a record: the records before it, then a truncation error",
        arguments: [OTLPFraming.u32be, .varint])
    func everyCut(framing: OTLPFraming) {
        let file = framing == .u32be ? StreamInputs.u32be(Self.messages) : StreamInputs.varint(Self.messages)
        let boundaries = Self.boundaries(framing)
        #expect(boundaries.last == file.count)
        for cut in 1..<file.count where !boundaries.contains(cut) {
            let bytes = Array(file[..<cut])
            let complete = boundaries.filter { $0 <= cut }.count - 1
            let (pipe, descriptor) = StreamInputs.pipe(bytes)
            defer { close(descriptor) }
            for (source, label) in [
                (OTLPMemorySource(bytes) as any OTLPByteSource, "memory"), (StreamInputs.TrickleSource(bytes, step: 7), "trickle"),
                (pipe, "pipe"),
            ] {
                let outcome = StreamInputs.read(source)
                guard let error = outcome.error else {
                    Issue.record(
                        "cut at \(cut) of \(file.count) via \(label): read as valid \(String(describing: outcome.framing)), \(outcome.records.count) records"
                    )
                    continue
                }
                #expect([.truncatedLengthPrefix, .truncatedRecord].contains(error.code), "cut at \(cut) via \(label): \(error)")
                // Under 4 bytes nothing tells the framings apart; the cut is reported all the same.
                #expect(outcome.framing == framing || cut < 4, "cut at \(cut) via \(label)")
                #expect(outcome.records.count == complete, "cut at \(cut) via \(label)")
                #expect(error.recordIndex == complete && error.byteOffset == boundaries[complete])
            }
        }
    }

    @Test("the same cuts through gzip: never valid")
    func everyCutGzip() throws {
        let sink = OTLPMemorySink()
        let writer = OTLPRecordWriter(sink: sink, framing: .u32be, gzip: true)
        try writer.write(SampleTelemetry.traces(1))
        try writer.flush()
        try writer.write(SampleTelemetry.traces(2))
        try writer.flush()
        let file = sink.bytes
        let members = StreamInputs.read(file).records.count
        #expect(members == 2)
        for cut in 1..<file.count {
            let outcome = StreamInputs.read(Array(file[..<cut]))
            if outcome.error == nil {
                // Only a cut at the end of the first member leaves a valid, shorter file.
                #expect(outcome.records.count == 1, "cut at \(cut) read as valid")
            }
        }
    }

    @Test("JSON lines whose first line is longer than the 1 MiB detection sample are JSON lines, not one document")
    func longFirstLine() throws {
        let big = OTLPJSONEncoder().encode(SampleTelemetry.traces(1500))
        #expect(big.count > 1 << 20)
        let small = OTLPJSONEncoder().encode(SampleTelemetry.traces(2))
        let bytes = big + [0x0A] + small + [0x0A] + big + [0x0A]
        for source in [OTLPMemorySource(bytes) as any OTLPByteSource, StreamInputs.TrickleSource(bytes, step: 4096)] {
            let outcome = StreamInputs.read(source)
            #expect(outcome.error == nil, "\(String(describing: outcome.error))")
            #expect(outcome.framing == .jsonl)
            #expect(outcome.records.map(\.payload.itemCount) == [1500, 2, 1500])
        }
    }

    @Test("a pretty-printed JSON document is still one record")
    func prettyDocument() {
        let bytes = Array("{\n  \"resourceLogs\": [\n    {}\n  ]\n}\n".utf8)
        let outcome = StreamInputs.read(bytes)
        #expect(outcome.error == nil && outcome.records.count == 1 && outcome.signals == [.logs])
    }

    @Test("damage in the middle keeps the framing that read the records before it")
    func damageInTheMiddle() {
        var corrupt = Self.messages[3]
        corrupt[corrupt.count / 2] = 0xFF
        corrupt[corrupt.count / 2 + 1] = 0xFF
        for framing in [OTLPFraming.u32be, .varint] {
            let messages = [Self.messages[0], Self.messages[1], corrupt, Self.messages[0]]
            let bytes = framing == .u32be ? StreamInputs.u32be(messages) : StreamInputs.varint(messages)
            let outcome = StreamInputs.read(bytes)
            #expect(outcome.framing == framing)
            #expect(outcome.records.count == 2)
            #expect(outcome.error?.recordIndex == 2)
        }
    }
}

extension DetectionDamageTests {
    /// Regression: a u32be file of one whole record that is not a request (a value nested too deep, here an
    /// invalid wire type at its end) was read as varint, its prefix's `00 00` as two empty records, and
    /// reported as a `truncated_record` at record 2.
    @Test("one whole u32be record that is damaged: read as u32be, the damage reported at record 0")
    func wholeDamagedRecord() {
        var misread = 0
        for nameBytes in stride(from: 32_700, through: 66_000, by: 331) {
            let span =
                OTLPProtobufBytes.field(1, [UInt8](repeating: 1, count: 16)) + OTLPProtobufBytes.field(2, [UInt8](repeating: 2, count: 8))
                + OTLPProtobufBytes.field(5, [UInt8](repeating: UInt8(ascii: "n"), count: nameBytes))
            let record = Wire.traces([span]) + [0x0F]  // field 1, wire type 7: no reader accepts it
            let bytes = StreamInputs.u32be([record])
            let outcome = StreamInputs.read(bytes)
            if outcome.framing != .u32be { misread += 1 }
            #expect(outcome.framing == .u32be, "\(bytes.count) bytes")
            #expect(
                outcome.records.isEmpty && outcome.error?.recordIndex == 0, "\(bytes.count) bytes: \(String(describing: outcome.error))")
            #expect(![.truncatedRecord, .truncatedLengthPrefix].contains(outcome.error?.code), "\(bytes.count) bytes")
        }
        #expect(misread == 0)
    }
}
