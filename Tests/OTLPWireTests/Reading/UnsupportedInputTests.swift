#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import OTLPWire

/// Input of another signal or another compression is said to be so, never read as empty or as garbage.
@Suite("Other signals and compressions")
struct UnsupportedInputTests {
    static let tracesLine = OTLPJSONEncoder().encode(SampleTelemetry.traces(2))
    static let logsLine = OTLPJSONEncoder().encode(SampleTelemetry.logs(2))
    static func lines(_ lines: [[UInt8]]) -> [UInt8] { lines.flatMap { $0 + [0x0A] } }

    @Test("JSON lines: a traces line in a logs file is wrong_kind at its index, detected or given, never an empty request")
    func jsonWrongKind() {
        let bytes = Self.lines([Self.logsLine, Self.tracesLine, Self.logsLine])
        for options in [OTLPReaderOptions(), OTLPReaderOptions(signal: .logs), OTLPReaderOptions(framing: .jsonl, signal: .logs)] {
            let outcome = StreamInputs.read(bytes, options: options)
            #expect(outcome.records.count == 1)
            #expect(outcome.error?.code == .wrongKind)
            #expect(outcome.error?.recordIndex == 1)
            #expect(outcome.error?.byteOffset == Self.logsLine.count + 1)
        }
        let reversed = StreamInputs.read(Self.lines([Self.tracesLine, Self.logsLine]))
        #expect(reversed.records.count == 1 && reversed.error?.code == .wrongKind)
    }

    @Test("JSON: the decoder refuses a request of the other signal instead of returning it empty")
    func jsonDecoderAPI() {
        #expect(throws: OTLPReadError.self) { try Self.tracesLine.withUnsafeBytes { try OTLPJSONDecoder().decodeLogs($0) } }
        do throws(OTLPReadError) {
            _ = try Self.logsLine.withUnsafeBytes { b in Result { () throws(OTLPReadError) in try OTLPJSONDecoder().decodeTraces(b) } }
                .get()
            Issue.record("decoded")
        } catch {
            #expect(error.code == .wrongKind)
        }
    }

    @Test(
        "JSON: profiles requests are unsupported_signal, detected or with a signal given",
        arguments: ["resourceProfiles", "resource_profiles"])
    func jsonOtherSignals(key: String) {
        let line = Array("{\"\(key)\":[{\"resource\":{},\"scopeMetrics\":[]}]}".utf8)
        for options in [OTLPReaderOptions(), OTLPReaderOptions(signal: .traces), OTLPReaderOptions(signal: .logs)] {
            let outcome = StreamInputs.read(Self.lines([line]), options: options)
            #expect(outcome.records.isEmpty)
            #expect(outcome.error?.code == .unsupportedSignal, "\(String(describing: outcome.error))")
            #expect(outcome.error?.recordIndex == 0)
        }
        // After valid records: they are delivered first.
        let after = StreamInputs.read(Self.lines([Self.tracesLine, line]))
        #expect(after.records.count == 1 && after.error?.code == .unsupportedSignal && after.error?.recordIndex == 1)
    }

    @Test(
        "JSON: a metrics request is read as metrics when detected or given, and is wrong_kind as traces or logs",
        arguments: ["resourceMetrics", "resource_metrics"])
    func jsonMetrics(key: String) {
        let line = Array("{\"\(key)\":[{\"resource\":{},\"scopeMetrics\":[{\"metrics\":[{\"name\":\"m\"}]}]}]}".utf8)
        for options in [OTLPReaderOptions(), OTLPReaderOptions(signal: .metrics)] {
            let outcome = StreamInputs.read(Self.lines([line]), options: options)
            #expect(outcome.error == nil && outcome.records.count == 1 && outcome.items == 1, "\(String(describing: outcome.error))")
        }
        for options in [OTLPReaderOptions(signal: .traces), OTLPReaderOptions(signal: .logs)] {
            let outcome = StreamInputs.read(Self.lines([line]), options: options)
            #expect(outcome.records.isEmpty && outcome.error?.code == .wrongKind && outcome.error?.recordIndex == 0)
        }
        let after = StreamInputs.read(Self.lines([Self.tracesLine, line]))
        #expect(after.records.count == 1 && after.error?.code == .wrongKind && after.error?.recordIndex == 1)
    }

    @Test("JSON: one object holding two signals is malformed_json, not half read")
    func jsonBothSignals() {
        let both = Array("{\"resourceSpans\":[{}],\"resourceLogs\":[{}]}".utf8)
        let outcome = StreamInputs.read(Self.lines([both]), options: OTLPReaderOptions(signal: .traces))
        #expect(outcome.error?.code == .malformedJSON)
    }

    /// Regression (hostile review): a null `resourceMetrics` beside logs was "two signals", where null counts
    /// as absent everywhere else.
    @Test("JSON: a null signal member counts as absent; an empty metrics array still names metrics")
    func jsonNullSignalMember() {
        let line = Array(#"{"resourceMetrics":null,"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":{"stringValue":"x"}}]}]}]}"#.utf8)
        let outcome = StreamInputs.read(Self.lines([line]))
        #expect(outcome.error == nil && outcome.records.first?.payload.signal == .logs, "\(String(describing: outcome.error))")
        let emptyMetrics = Array(#"{"resourceMetrics":[],"resourceLogs":[{"scopeLogs":[{"logRecords":[{}]}]}]}"#.utf8)
        #expect(StreamInputs.read(Self.lines([emptyMetrics])).error?.code == .malformedJSON)
    }

    static let magics: [(name: String, bytes: [UInt8])] = [
        ("xz", [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00, 0x00, 0x04]),
        ("bzip2", Array("BZh91AY&SY".utf8)),
        ("lz4", [0x04, 0x22, 0x4D, 0x18, 0x64, 0x40, 0xA7]),
        ("zip", [0x50, 0x4B, 0x03, 0x04, 0x14, 0x00]),
        ("7z", [0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C, 0x00, 0x04]),
    ]

    @Test(
        "xz, bzip2, lz4, zip and 7z input is unsupported_compression at byte 0, whatever framing is given",
        arguments: 0..<magics.count)
    func foreignCompression(index: Int) {
        let (name, magic) = Self.magics[index]
        let bytes = magic + [UInt8](repeating: 0x5A, count: 200)
        let (pipe, descriptor) = StreamInputs.pipe(bytes)
        defer { close(descriptor) }
        for (source, options) in [
            (OTLPMemorySource(bytes) as any OTLPByteSource, OTLPReaderOptions()), (pipe, OTLPReaderOptions()),
            (OTLPMemorySource(bytes), OTLPReaderOptions(framing: .u32be, signal: .traces)),
            (OTLPMemorySource(bytes), OTLPReaderOptions(framing: .jsonl)),
        ] {
            let outcome = StreamInputs.read(source, name: "data.\(name)", options: options)
            #expect(outcome.records.isEmpty)
            #expect(outcome.error?.code == .unsupportedCompression, "\(name): \(String(describing: outcome.error))")
            #expect(outcome.error?.recordIndex == 0 && outcome.error?.byteOffset == 0)
            #expect(outcome.error?.message.contains(name) == true)
        }
    }

    @Test("zstd input is read as zstd (it used to be unsupported_compression): damaged, it is a zstd error in the file")
    func zstdIsRead() {
        let bytes = OTLPZstd.magic + [0x24, 0x05, 0x29, 0x00] + [UInt8](repeating: 0x5A, count: 200)
        for options in [OTLPReaderOptions(), OTLPReaderOptions(framing: .u32be, signal: .traces), OTLPReaderOptions(framing: .jsonl)] {
            let outcome = StreamInputs.read(bytes, name: "data.zst", options: options)
            #expect(outcome.records.isEmpty)
            #expect([OTLPReadError.Code.zstdCorrupt, .zstdTruncated].contains(outcome.error?.code), "\(String(describing: outcome.error))")
            #expect(outcome.error?.offsetIn == .file)
        }
    }

    @Test("valid files never look like another compressor: every vector still reads", arguments: SharedVectors.entries.filter(\.valid))
    func vectorsAreNotForeign(entry: SharedVectors.Entry) throws {
        let head = Array(try SharedVectors.bytes(entry.path).prefix(ForeignCompression.maxMagicBytes))
        #expect(ForeignCompression.fault(head: head) == nil)
    }
}
