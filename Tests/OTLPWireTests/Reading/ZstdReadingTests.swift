import Foundation
import Testing
@testable import OTLPWire
import OTLPTestSupport

/// Reading zstd files in every layout the OpenTelemetry Collector's file exporter writes: records of one zstd
/// frame each (its default with `compression: zstd`, protobuf or OTLP JSON), and whole files of zstd frames (its
/// native compression; the `zstd` tool), detected from the first bytes or given.
@Suite("Reading zstd")
struct ZstdReadingTests {
    static let traces = (0..<5).map { SampleTelemetry.traces(3, offset: $0 * 3) }
    static let logs = (0..<4).map { SampleTelemetry.logs(2, offset: $0 * 2) }

    static func protobuf(_ data: OTLPTracesData) -> [UInt8] { OTLPEncoder().encode(data) }

    /// The records as the writer writes them in `framing`, `zstd` or not.
    static func written(_ payloads: [OTLPPayload], framing: OTLPFraming, zstd: Bool = false, gzip: Bool = false) throws -> [UInt8] {
        let sink = OTLPMemorySink()
        let writer = OTLPRecordWriter(sink: sink, framing: framing, gzip: gzip, zstd: zstd)
        for payload in payloads { try writer.write(payload) }
        try writer.close()
        return sink.bytes
    }

    /// `bytes` through the `zstd` command-line tool (one frame for the whole input, checksum on).
    static func zstdTool(_ bytes: [UInt8], arguments: [String] = []) throws -> [UInt8] {
        let directory = try OTLPTemporaryDirectory.make("zstd")
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in")
        try Data(bytes).write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["zstd", "-q", "-c", "--check"] + arguments + [input.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "zstd failed (apt-get install zstd)") }
        return [UInt8](data)
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    static func json(_ payloads: [OTLPPayload]) -> [[UInt8]] { payloads.map(OTLPFrameWriterTests.json) }
    static func json(_ records: [OTLPRecord]) -> [[UInt8]] { json(records.map(\.payload)) }

    static var tracePayloads: [OTLPPayload] { traces.map { .traces($0) } }
    static var logPayloads: [OTLPPayload] { logs.map { .logs($0) } }

    @Test(
        "zstd records (the Collector's default zstd layout) read back, protobuf and OTLP JSON, both signals",
        arguments: [OTLPFraming.u32be, .jsonl], [true, false])
    func zstdRecords(framing: OTLPFraming, traces: Bool) throws {
        let payloads = traces ? Self.tracePayloads : Self.logPayloads
        let bytes = try Self.written(payloads, framing: framing, zstd: true)
        // Each record: a u32be length, then one complete zstd frame.
        #expect(Array(bytes[4..<8]) == OTLPZstd.magic)
        let outcome = StreamInputs.read(bytes)
        #expect(outcome.error == nil)
        #expect(outcome.framing == .u32be)
        #expect(Self.json(outcome.records) == Self.json(payloads))
        #expect(outcome.signal == (traces ? .traces : .logs))
        let reader = try OTLPRecordReader(source: OTLPMemorySource(bytes))
        #expect(reader.compression == .zstdRecords)
    }

    @Test(
        "a whole file of zstd frames made by the zstd tool reads as the file it compresses: u32be and JSON lines",
        arguments: [OTLPFraming.u32be, .jsonl])
    func nativeFromTool(framing: OTLPFraming) throws {
        let plain = try Self.written(Self.tracePayloads, framing: framing)
        let compressed = try Self.zstdTool(plain)
        let outcome = StreamInputs.read(compressed)
        #expect(outcome.error == nil)
        #expect(outcome.framing == framing)
        #expect(Self.json(outcome.records) == Self.json(Self.tracePayloads))
        let reader = try OTLPRecordReader(source: OTLPMemorySource(compressed))
        #expect(reader.compression == .zstd)
        #expect(reader.isCompressed)
    }

    @Test("one frame per write, skippable and empty frames between them, read as one stream, any input chunking")
    func nativeFramePerWrite() throws {
        let records = try Self.tracePayloads.map { try Self.written([$0], framing: .u32be) }
        var bytes = ZstdDecompressorTests.skippable(5)
        for record in records {
            bytes += try ZstdDecompressorTests.frame(record) + ZstdDecompressorTests.frame([])
        }
        for step in [1, 13, 1 << 20] {
            let outcome = StreamInputs.read(StreamInputs.TrickleSource(bytes, step: step))
            #expect(outcome.error == nil)
            #expect(Self.json(outcome.records) == Self.json(Self.tracePayloads))
        }
    }

    @Test("a native zstd file cut mid-frame delivers the records before the cut, then zstd_truncated")
    func nativeCut() throws {
        let records = try Self.tracePayloads.map { try Self.written([$0], framing: .u32be) }
        let frames = try records.map { try ZstdDecompressorTests.frame($0) }
        let whole = frames.flatMap { $0 }
        let cut = Array(whole.prefix(frames[0].count + frames[1].count + frames[2].count / 2))
        let outcome = StreamInputs.read(cut, options: OTLPReaderOptions(signal: .traces))
        #expect(Self.json(outcome.records) == Self.json(Array(Self.tracePayloads.prefix(2))))
        #expect(outcome.error?.code == .zstdTruncated)
        #expect(outcome.error?.byteOffset == cut.count)
        #expect(outcome.error?.offsetIn == .file)
        #expect(outcome.error?.recordIndex == 2)
    }

    @Test(
        "zstd records: a cut record is truncated_record, a damaged frame zstd_corrupt, at the record; the records before it are delivered")
    func recordFaults() throws {
        let bytes = try Self.written(Self.tracePayloads, framing: .u32be, zstd: true)
        var starts: [Int] = []
        var position = 0
        while position < bytes.count {
            starts.append(position)
            position += 4 + Int(bytes[position..<position + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }
        // Cut inside the fourth record's frame.
        let cut = StreamInputs.read(Array(bytes.prefix(starts[3] + 12)))
        #expect(Self.json(cut.records) == Self.json(Array(Self.tracePayloads.prefix(3))))
        #expect(cut.error?.code == .truncatedRecord)
        #expect(cut.error?.recordIndex == 3)
        #expect(cut.error?.byteOffset == starts[3])
        // A flipped byte in the body of the third record's frame: its checksum (or its data) is wrong.
        var damaged = bytes
        damaged[(starts[2] + starts[3]) / 2 + 6] ^= 0xFF
        let read = StreamInputs.read(damaged)
        #expect(Self.json(read.records) == Self.json(Array(Self.tracePayloads.prefix(2))))
        #expect(read.error?.code == .zstdCorrupt)
        #expect(read.error?.recordIndex == 2)
        #expect(read.error?.byteOffset == starts[2])
        #expect(read.error?.message.contains("of the record's zstd frame") == true)
        // A record that is not a frame at all in a file of zstd records.
        let plain = Self.protobuf(Self.traces[0])
        let mixed = Array(bytes.prefix(starts[1])) + StreamInputs.u32be([plain])
        let notFrame = StreamInputs.read(mixed)
        #expect(notFrame.records.count == 1)
        #expect(notFrame.error?.code == .zstdCorrupt)
        #expect(notFrame.error?.recordIndex == 1)
    }

    @Test("a zstd record whose frame contradicts its own content size is zstd_corrupt (data), not io_error (regression: exit 2)")
    func frameContentSizeTooSmall() throws {
        let regressions = SharedVectors.root.deletingLastPathComponent().appendingPathComponent("regressions")
        let bytes = Array(try Data(contentsOf: regressions.appendingPathComponent("zstd-record-content-size-too-small.u32be.bin")))
        let read = StreamInputs.read(bytes)
        #expect(read.error?.code == .zstdCorrupt, "\(String(describing: read.error))")
        #expect(read.error?.recordIndex == 0)
    }

    @Test("zstd records over the limits: a record past maxRecordBytes, the file past maxDecompressedBytes or the ratio")
    func recordLimits() throws {
        let bytes = try Self.written(Self.tracePayloads, framing: .u32be, zstd: true)
        let sizes = Self.traces.map { Self.protobuf($0).count }
        let small = StreamInputs.read(
            bytes, options: OTLPReaderOptions(decoding: OTLPDecodingOptions(maxRecordBytes: sizes[0] - 1)))
        #expect(small.records.isEmpty)
        #expect(small.error?.code == .recordTooLarge)
        #expect(small.error?.recordIndex == 0)
        let total = StreamInputs.read(bytes, options: OTLPReaderOptions(maxDecompressedBytes: sizes[0] + sizes[1] + 1))
        #expect(total.records.count == 2)
        #expect(total.error?.code == .zstdTooLarge)
        #expect(total.error?.recordIndex == 2)
        // The message names the limit that was set, not the budget left of it (regression: it said "the limit of 1 bytes").
        let limit = sizes[0] + sizes[1] + 1
        #expect(total.error?.message.contains("the limit of \(limit) bytes") == true, "\(String(describing: total.error))")
        // A bomb: records of zeros-like content that compress far beyond the ratio.
        let padded = OTLPTracesData(
            resource: OTLPResource(attributes: [OTLPAttribute("pad", .string(String(repeating: "a", count: 6 << 20)))]),
            scope: SampleTelemetry.scope, items: [SampleTelemetry.span(0)])
        let bomb = try Self.written(Array(repeating: .traces(padded), count: 4), framing: .u32be, zstd: true)
        #expect(bomb.count < 20_000)
        let bombRead = StreamInputs.read(bomb, options: OTLPReaderOptions(maxInflationRatio: 1000))
        #expect(bombRead.error?.code == .zstdTooLarge)
        #expect(bombRead.error?.message.contains("zstd bomb") == true)
        #expect((1...3).contains(bombRead.records.count))
    }

    @Test("the compression can be given: zstd records, a zstd stream, none (a zstd file then reads as damage)")
    func givenCompression() throws {
        let records = try Self.written(Self.tracePayloads, framing: .u32be, zstd: true)
        let given = StreamInputs.read(records, options: OTLPReaderOptions(compression: .zstdRecords))
        #expect(Self.json(given.records) == Self.json(Self.tracePayloads))
        let native = try Self.zstdTool(try Self.written(Self.tracePayloads, framing: .jsonl))
        let stream = StreamInputs.read(native, options: OTLPReaderOptions(compression: .zstd))
        #expect(Self.json(stream.records) == Self.json(Self.tracePayloads))
        let notZstd = StreamInputs.read(
            try Self.written(Self.tracePayloads, framing: .u32be), options: OTLPReaderOptions(compression: .zstd))
        #expect(notZstd.error?.code == .zstdCorrupt)
        #expect(notZstd.error?.byteOffset == 0)
        let none = StreamInputs.read(records, options: OTLPReaderOptions(compression: OTLPFileCompression.none))
        #expect(none.error != nil)
        #expect(none.records.isEmpty)
    }

    @Test("gzip around zstd records, and a native zstd file named .u32be.bin.zst, read back")
    func combinations() throws {
        let gzipped = try Self.written(Self.logPayloads, framing: .jsonl, zstd: true, gzip: true)
        let read = StreamInputs.read(gzipped)
        #expect(read.error == nil)
        #expect(Self.json(read.records) == Self.json(Self.logPayloads))
        let native = try Self.zstdTool(try Self.written(Self.logPayloads, framing: .u32be))
        let named = StreamInputs.read(native, name: "out.u32be.bin.zst")
        #expect(named.framing == .u32be)
        #expect(Self.json(named.records) == Self.json(Self.logPayloads))
    }

    @Test(
        "the reference decoder (opentelemetry-proto with zstandard) reads our zstd records, protobuf and JSON, equal to ours",
        arguments: [OTLPFraming.u32be, .jsonl])
    func referenceReadsOurRecords(framing: OTLPFraming) throws {
        let bytes = try Self.written(Self.tracePayloads, framing: framing, zstd: true)
        let path = OTLPTemporaryDirectory.unusedPath("zstd-records", suffix: ".bin").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let lines = try ReferenceDecoder.decode(path: path, framing: .u32be, signal: .traces)
        #expect(lines.count == Self.tracePayloads.count)
        for (line, payload) in zip(lines, Self.tracePayloads) {
            let theirs = try line.withUnsafeBytes { try OTLPJSONDecoder().decodeTraces($0) }
            #expect(OTLPFrameWriterTests.json(.traces(theirs)) == OTLPFrameWriterTests.json(payload))
        }
    }

    /// Runs `script` with python3 (the reference packages), its arguments after it.
    static func python(_ script: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "python3 failed (pip install zstandard): \(text)") }
    }

    /// What the Collector writes, made by the reference `zstandard` package from a shared vector: `records`
    /// (each u32be record, or each JSON line, as one frame behind a u32be length) or `stream` (one frame per
    /// record of the uncompressed file, concatenated: the native layout when rotating).
    static let referenceWriter = """
        import sys, zstandard
        source, layout, out = sys.argv[1:4]
        data = open(source, "rb").read()
        if source.endswith(".jsonl"):
            messages = [line for line in data.split(b"\\n") if line.strip()]
            plain = [m + b"\\n" for m in messages]
        else:
            messages, plain, pos = [], [], 0
            while pos < len(data):
                n = int.from_bytes(data[pos:pos + 4], "big")
                messages.append(data[pos + 4:pos + 4 + n])
                plain.append(data[pos:pos + 4 + n])
                pos += 4 + n
        compressor = zstandard.ZstdCompressor(write_checksum=True)
        result = bytearray()
        for message, record in zip(messages, plain):
            if layout == "records":
                frame = compressor.compress(message)
                result += len(frame).to_bytes(4, "big") + frame
            else:
                result += compressor.compress(record)
        open(out, "wb").write(result)
        """

    @Test(
        "files the reference zstandard package writes in the Collector's layouts read equal to the uncompressed vectors",
        arguments: [
            "framed/traces-mixed.u32be.bin", "framed/logs-mixed.u32be.bin", "framed/traces-mixed.jsonl", "framed/logs-mixed.jsonl",
        ],
        ["records", "stream"])
    func referenceLayouts(vector: String, layout: String) throws {
        let source = SharedVectors.root.appendingPathComponent(vector)
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("zstd-\(layout)-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: out) }
        try Self.python(Self.referenceWriter, [source.path, layout, out.path])
        let expected = StreamInputs.read([UInt8](try Data(contentsOf: source)), name: vector)
        #expect(expected.error == nil && !expected.records.isEmpty)
        let bytes = [UInt8](try Data(contentsOf: out))
        let read = StreamInputs.read(bytes)
        #expect(read.error == nil)
        #expect(Self.json(read.records) == Self.json(expected.records))
        #expect(read.signal == expected.signal)
        let reader = try OTLPRecordReader(source: OTLPMemorySource(bytes))
        #expect(reader.compression == (layout == "records" ? .zstdRecords : .zstd))
    }
}
