import Foundation
import OTLPTestSupport
import Testing
@testable import OTLPWire

/// Metrics files in every layout the readers take (protobuf u32be, varint and unframed, JSON lines, gzip,
/// zstd records and a native zstd stream) read as metrics, equal to the reference package's requests.
@Suite("Metrics files in every layout")
struct MetricsReadingLayoutTests {
    /// The reference requests, decoded.
    static func reference() throws -> [OTLPMetricsData] {
        try MetricsReferenceTests.fixtures.get().requests.map { try OTLPDecoder().decodeMetrics($0) }
    }

    /// `requests` written by the library's writer in `framing`, gzip or zstd records.
    static func written(_ requests: [OTLPMetricsData], framing: OTLPFraming, gzip: Bool = false, zstd: Bool = false) throws -> [UInt8] {
        let sink = OTLPMemorySink()
        let writer = OTLPRecordWriter(sink: sink, framing: framing, gzip: gzip, zstd: zstd)
        for request in requests { try writer.write(request) }
        try writer.close()
        return sink.bytes
    }

    static func metrics(_ outcome: StreamInputs.Outcome) -> [OTLPMetricsData] {
        outcome.records.compactMap { if case .metrics(let data) = $0.payload { data } else { nil } }
    }

    @Test(
        "written u32be, varint, JSON lines, gzip and zstd records, a metrics file reads back as the reference's requests",
        arguments: [
            (OTLPFraming.u32be, false, false), (.varint, false, false), (.jsonl, false, false), (.u32be, true, false),
            (.jsonl, true, false), (.u32be, false, true), (.jsonl, false, true),
        ])
    func layouts(framing: OTLPFraming, gzip: Bool, zstd: Bool) throws {
        let reference = try Self.reference()
        let bytes = try Self.written(reference, framing: framing, gzip: gzip, zstd: zstd)
        let outcome = StreamInputs.read(bytes)
        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        #expect(outcome.signal == .metrics)
        #expect(Self.metrics(outcome) == reference)
        // Given as the signal, the same.
        #expect(Self.metrics(StreamInputs.read(bytes, options: OTLPReaderOptions(signal: .metrics))) == reference)
    }

    @Test("one bare metrics request (no framing) reads as one metrics record")
    func unframed() throws {
        let fixtures = try MetricsReferenceTests.fixtures.get()
        let outcome = StreamInputs.read(fixtures.requests[0])
        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        #expect(outcome.framing == .unframed)
        #expect(Self.metrics(outcome) == [try OTLPDecoder().decodeMetrics(fixtures.requests[0])])
    }

    @Test("the reference's files read as written: its u32be protobuf and its JSON lines give the same requests")
    func referenceFiles() throws {
        let fixtures = try MetricsReferenceTests.fixtures.get()
        let reference = try Self.reference()
        let protobuf = try OTLPRecordReader(path: fixtures.directory.appendingPathComponent("metrics.u32be.bin").path)
        let json = try OTLPRecordReader(path: fixtures.directory.appendingPathComponent("metrics.jsonl").path)
        for reader in [protobuf, json] {
            var read: [OTLPMetricsData] = []
            while let record = try reader.next() {
                if case .metrics(let data) = record.payload { read.append(data) }
            }
            #expect(reader.signal == .metrics)
            #expect(read == reference)
        }
    }

    @Test("a native zstd stream of a u32be metrics file (zstandard) reads as its requests")
    func nativeZstd() throws {
        let fixtures = try MetricsReferenceTests.fixtures.get()
        let out = fixtures.directory.appendingPathComponent("metrics.u32be.bin.zst")
        try ZstdReadingTests.python(
            "import sys, zstandard\nopen(sys.argv[2], 'wb').write(zstandard.ZstdCompressor().compress(open(sys.argv[1], 'rb').read()))",
            [fixtures.directory.appendingPathComponent("metrics.u32be.bin").path, out.path])
        let outcome = StreamInputs.read([UInt8](try Data(contentsOf: out)))
        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        #expect(Self.metrics(outcome) == (try Self.reference()))
    }

    @Test("validateNext and nextChecked count metrics, as next() decodes them")
    func checking() throws {
        let reference = try Self.reference()
        for framing in [OTLPFraming.u32be, .jsonl] {
            let bytes = try Self.written(reference, framing: framing)
            let reader = try OTLPRecordReader(source: OTLPMemorySource(bytes))
            var items: [Int] = []
            while let (_, count) = try reader.validateNext() { items.append(count) }
            #expect(items == reference.map(\.itemCount))
            let checked = try OTLPRecordReader(source: OTLPMemorySource(bytes))
            while let record = try checked.nextChecked() { #expect(record.signal == .metrics) }
        }
    }

    @Test("the file name's metrics token names the signal; a token of two signals names none")
    func fileNameToken() {
        #expect(OTLPSignal.fromFileName("app.metrics.u32be.bin") == .metrics)
        #expect(OTLPSignal.fromFileName("/var/otel/metric-2024.jsonl") == .metrics)
        #expect(OTLPSignal.fromFileName("traces-and-metrics.bin") == nil)
        #expect(OTLPSignal.fromFileName("geometrics.bin") == nil)
    }
}
