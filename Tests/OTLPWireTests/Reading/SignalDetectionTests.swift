import Testing
@testable import OTLPWire

/// The signal is decided per file from the content's evidence, never by a substring of the name, never by an
/// empty first record; content that cannot decide is an error that asks for the signal.
@Suite("Signal detection from evidence")
struct SignalDetectionTests {
    /// Log records with only `severity_text` and a string body: they also read as spans (name, trace_state).
    static let logsLikeSpans = OTLPEncoder().encode(
        OTLPLogsData(
            resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"),
            items: (0..<3).map { OTLPLogRecord(timeUnixNano: 0, severityText: "INFO", body: .string("hello \($0)")) }))
    static let traces = OTLPEncoder().encode(SampleTelemetry.traces(2))
    static let logs = OTLPEncoder().encode(SampleTelemetry.logs(2))

    @Test("log records that also read as spans without IDs lean to logs; spans with IDs decide traces")
    func evidence() {
        let decoder = OTLPDecoder()
        #expect(Self.logsLikeSpans.withUnsafeBytes { decoder.signalEvidence($0) } == .leaning(.logs))
        #expect(Self.logsLikeSpans.withUnsafeBytes { decoder.detectSignal($0) } == .logs)
        #expect(Self.traces.withUnsafeBytes { decoder.signalEvidence($0) } == .decisive(.traces))
        #expect(Self.logs.withUnsafeBytes { decoder.signalEvidence($0) } == .decisive(.logs))
        #expect([UInt8]().withUnsafeBytes { decoder.signalEvidence($0) } == .silent(isEmpty: true))
        #expect(Wire.resourceOnly.withUnsafeBytes { decoder.signalEvidence($0) } == .silent(isEmpty: false))
        #expect(([0x0A, 0x00] as [UInt8]).withUnsafeBytes { decoder.signalEvidence($0) } == .silent(isEmpty: true))
        #expect(([0x0A, 0x02, 0x12, 0x00] as [UInt8]).withUnsafeBytes { decoder.signalEvidence($0) } == .silent(isEmpty: true))
        #expect(([0x0A, 0x03, 0x1A, 0x01, 0x78] as [UInt8]).withUnsafeBytes { decoder.signalEvidence($0) } == .silent(isEmpty: false))
    }

    @Test(
        "a logs file whose records also read as spans is logs, whatever neutral name it has, in every framing",
        arguments: [nil, "x.bin", "catalog.bin", "backlog.bin", "dialog.data"])
    func logsThatReadAsSpans(name: String?) {
        for bytes in [
            StreamInputs.u32be([Self.logsLikeSpans, Self.logsLikeSpans]), StreamInputs.varint([Self.logsLikeSpans, Self.logsLikeSpans]),
        ] {
            let outcome = StreamInputs.read(bytes, name: name)
            #expect(outcome.error == nil)
            #expect(outcome.signals == [.logs, .logs], "\(String(describing: name))")
            #expect(outcome.items == 6)
        }
    }

    @Test("file name hints are whole tokens; both signals or none announce nothing")
    func nameTokens() {
        #expect(OTLPSignal.fromFileName("dir/catalog-traces.u32be.bin") == .traces)
        #expect(OTLPSignal.fromFileName("app.traces.jsonl") == .traces)
        #expect(OTLPSignal.fromFileName("logs-mixed.u32be.bin.gz") == .logs)
        #expect(OTLPSignal.fromFileName("/var/log/app_LOG.bin") == .logs)
        #expect(OTLPSignal.fromFileName("/var/log/catalog.bin") == nil)
        #expect(OTLPSignal.fromFileName("backlog.u32be.bin") == nil)
        #expect(OTLPSignal.fromFileName("traces-and-logs.bin") == nil)
        #expect(OTLPSignal.fromFileName("spans.pb") == .traces)
    }

    @Test("regression: catalog-traces.u32be.bin holding traces is traces (the old substring test read `log`)")
    func catalogTraces() {
        let outcome = StreamInputs.read(StreamInputs.u32be([Self.traces]), name: "catalog-traces.u32be.bin")
        #expect(outcome.error == nil && outcome.signals == [.traces])
    }

    @Test("content decides over the name: traces in a file named logs are traces")
    func contentOverName() {
        let outcome = StreamInputs.read(StreamInputs.u32be([Self.traces]), name: "app-logs.u32be.bin")
        #expect(outcome.error == nil && outcome.signals == [.traces])
    }

    @Test(
        "regression: an empty first record (zero bytes, or one empty ResourceLogs) does not fix the signal",
        arguments: [[UInt8](), [0x0A, 0x00], Wire.resourceOnly])
    func emptyFirstRecord(first: [UInt8]) {
        for name in [nil, "x.u32be.bin"] as [String?] {
            let outcome = StreamInputs.read(StreamInputs.u32be([first, Self.logs, first, Self.logs]), name: name)
            #expect(outcome.error == nil, "\(String(describing: outcome.error))")
            #expect(outcome.signals == [.logs, .logs, .logs, .logs])
            #expect(outcome.signal == .logs)
        }
    }

    @Test("records before a deciding one follow it: records that lean to logs, then a traces record, are traces")
    func decisiveLater() {
        let outcome = StreamInputs.read(StreamInputs.u32be([Self.logsLikeSpans, Self.traces]))
        #expect(outcome.error == nil)
        #expect(outcome.signals == [.traces, .traces])
    }

    @Test("two deciding records of different signals: the second is wrong_kind at its index")
    func mixedSignals() {
        let outcome = StreamInputs.read(StreamInputs.u32be([Self.traces, Self.logs]))
        #expect(outcome.records.count == 1)
        #expect(outcome.error?.code == .wrongKind && outcome.error?.recordIndex == 1)
    }

    @Test("content that cannot decide and no name token: ambiguous_signal asking for the signal; a token or --signal decides")
    func ambiguous() {
        let bytes = StreamInputs.u32be([[], Wire.resourceOnly, Wire.resourceOnly])
        let outcome = StreamInputs.read(bytes, name: "resources.u32be.bin")
        #expect(outcome.records.count == 1)  // the empty request before it is delivered
        #expect(outcome.error?.code == .ambiguousSignal)
        #expect(outcome.error?.recordIndex == 1)
        #expect(outcome.error?.byteOffset == 4)
        #expect(outcome.error?.message.contains("--signal") == true)
        #expect(StreamInputs.read(bytes, name: "resources.logs.u32be.bin").signals == [.logs, .logs, .logs])
        let given = StreamInputs.read(bytes, options: OTLPReaderOptions(signal: .traces))
        #expect(given.error == nil && given.signals == [.traces, .traces, .traces])
    }

    @Test("a name token settles records that only lean (spans without IDs named traces)")
    func hintOverLeaning() {
        let outcome = StreamInputs.read(StreamInputs.u32be([Self.logsLikeSpans]), name: "legacy.traces.u32be.bin")
        #expect(outcome.error == nil && outcome.signals == [.traces])
    }

    @Test("empty requests alone (zero bytes, empty envelopes) are valid: nothing to decide, nothing lost")
    func onlyEmptyRecords() {
        let outcome = StreamInputs.read(StreamInputs.u32be([[], [0x0A, 0x00], []]))
        #expect(outcome.error == nil)
        #expect(outcome.records.count == 3 && outcome.items == 0)
        #expect(outcome.signal == nil)
    }

    @Test(
        "JSON lines: an empty first request (`{}`, or an empty resourceSpans array), then logs lines, are logs",
        arguments: ["{}", "{\"resourceSpans\":[]}", "{\"resource_spans\":null}"])
    func jsonEmptyFirst(first: String) {
        let logsLine = OTLPJSONEncoder().encode(SampleTelemetry.logs(2))
        let outcome = StreamInputs.read(Array((first + "\n").utf8) + logsLine + [0x0A] + Array((first + "\n").utf8) + logsLine + [0x0A])
        #expect(outcome.framing == .jsonl)
        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        #expect(outcome.signals == [.logs, .logs, .logs, .logs])
    }

    @Test("JSON lines: a traces line with a resource but no spans in a logs file is wrong_kind (its resource would be lost)")
    func jsonResourceOnlyOtherSignal() {
        let logsLine = OTLPJSONEncoder().encode(SampleTelemetry.logs(2))
        let outcome = StreamInputs.read(logsLine + Array("\n{\"resourceSpans\":[{\"resource\":{}}]}\n".utf8))
        #expect(outcome.records.count == 1 && outcome.error?.code == .wrongKind)
    }

    @Test("damage before any evidence is reported as damage, in the terms of the likelier signal")
    func damageFirst() {
        let outcome = StreamInputs.read(StreamInputs.u32be([[0x0A, 0x05, 0x01], Self.logs]))
        #expect(outcome.records.isEmpty)
        #expect(outcome.error?.code == .malformedProtobuf && outcome.error?.recordIndex == 0)
    }
}
