import Foundation
import Testing
@testable import OTLPWire
import OTLPTestSupport

@Suite("OTLPRecordWriter")
struct OTLPFrameWriterTests {
    static let framings: [OTLPFraming] = [.u32be, .varint, .jsonl]

    static func json(_ payload: OTLPPayload) -> [UInt8] {
        OTLPJSONEncoder().encode(payload)
    }

    @Test("writes and reads back every framing, with and without gzip", arguments: framings, [false, true])
    func roundTrip(framing: OTLPFraming, gzip: Bool) throws {
        let sink = OTLPMemorySink()
        let writer = OTLPRecordWriter(sink: sink, framing: framing, gzip: gzip)
        var expected: [[UInt8]] = []
        for batch in 0..<5 {
            let traces = SampleTelemetry.traces(batch * 3, offset: batch)
            try writer.write(traces)
            expected.append(OTLPJSONEncoder().encode(traces))
            if batch == 2 { try writer.flush() }  // a second gzip member
        }
        try writer.close()
        #expect(writer.recordsWritten == 5)

        let reader = try OTLPRecordReader(source: OTLPMemorySource(sink.bytes), options: OTLPReaderOptions(signal: .traces))
        #expect(reader.framing == framing)
        #expect(reader.isCompressed == gzip)
        var actual: [[UInt8]] = []
        while let record = try reader.next() { actual.append(Self.json(record.payload)) }
        #expect(actual.count == expected.count)
        for (a, e) in zip(actual, expected) {
            #expect(SemanticJSON.equal(try SemanticJSON.parse(a), try SemanticJSON.parse(e)))
        }
    }

    @Test("each uncompressed record reaches the sink in one write")
    func oneWritePerRecord() throws {
        let sink = OTLPMemorySink()
        let writer = OTLPRecordWriter(sink: sink)
        for count in [0, 1, 7] { try writer.write(SampleTelemetry.logs(count)) }
        #expect(sink.writeCount == 3)
    }

    @Test("u32be framing is a 4-byte big-endian length then the message")
    func u32beBytes() throws {
        let sink = OTLPMemorySink()
        let data = SampleTelemetry.traces(2)
        try OTLPRecordWriter(sink: sink).write(data)
        let message = OTLPEncoder().encode(data)
        let length = UInt32(message.count)
        #expect(
            Array(sink.bytes.prefix(4)) == [
                UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF),
            ])
        #expect(Array(sink.bytes.dropFirst(4)) == message)
    }

    @Test("a gzip file cut inside a member still yields every record of the flushed members")
    func gzipCutAfterFlush() throws {
        let sink = OTLPMemorySink()
        let writer = OTLPRecordWriter(sink: sink, gzip: true)
        for index in 0..<4 {
            try writer.write(SampleTelemetry.logs(3, offset: index))
            try writer.flush()
        }
        let flushedSize = sink.bytes.count
        try writer.write(SampleTelemetry.logs(50, offset: 9))
        try writer.flush()
        let cut = Array(sink.bytes[..<(flushedSize + (sink.bytes.count - flushedSize) / 2)])
        let reader = try OTLPRecordReader(source: OTLPMemorySource(cut))
        var records = 0
        #expect(throws: OTLPReadError.self) {
            while try reader.next() != nil { records += 1 }
        }
        #expect(records >= 4)
        do {
            _ = try reader.next()
        } catch {
            Issue.record("a reader that has failed returns nil afterwards, got \(error)")
        }
    }

    @Test(
        "the reference opentelemetry-proto decoder reads our files with identical content", arguments: [OTLPFraming.u32be, .varint],
        [false, true])
    func referenceCrossCheck(framing: OTLPFraming, gzip: Bool) throws {
        let directory = try OTLPTemporaryDirectory.make("otlpwire-crosscheck")
        defer { try? FileManager.default.removeItem(at: directory) }
        for signal in OTLPSignal.allCases {
            let path = directory.appendingPathComponent("\(signal).\(framing).bin\(gzip ? ".gz" : "")").path
            let writer = OTLPRecordWriter(sink: try OTLPFileSink(path: path), framing: framing, gzip: gzip)
            var expected: [[UInt8]] = []
            for batch in 0..<3 {
                switch signal {
                case .traces:
                    let data = SampleTelemetry.traces(4 + batch, offset: batch)
                    try writer.write(data)
                    expected.append(OTLPJSONEncoder().encode(data))
                case .logs:
                    let data = SampleTelemetry.logs(10 + batch, offset: batch)
                    try writer.write(data)
                    expected.append(OTLPJSONEncoder().encode(data))
                case .metrics:
                    var data = MetricsInStreamTests.metricsModel
                    data.resourceGroups[0].scopeGroups[0].items[0].name += ".\(batch)"
                    try writer.write(data)
                    expected.append(OTLPJSONEncoder().encode(data))
                }
                try writer.flush()
            }
            let lines = try ReferenceDecoder.decode(path: path, framing: framing, signal: signal)
            #expect(lines.count == expected.count)
            for (line, ours) in zip(lines, expected) {
                let difference = SemanticJSON.difference(try SemanticJSON.parse(line), try SemanticJSON.parse(ours))
                #expect(difference == nil, "\(signal) \(framing) gzip=\(gzip): \(difference ?? "")")
            }
        }
    }
}

/// Runs scripts/reference-decode.py (the opentelemetry-proto package; `make test` installs it).
enum ReferenceDecoder {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func decode(path: String, framing: OTLPFraming, signal: OTLPSignal) throws -> [[UInt8]] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/reference-decode.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, path, framing.rawValue, signal.rawValue]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "reference decoder failed (pip install opentelemetry-proto): \(errorText)")
        }
        return [UInt8](data).split(separator: 0x0A).map(Array.init)
    }
}
