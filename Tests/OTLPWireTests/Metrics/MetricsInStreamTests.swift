import OTLPTestSupport
import Testing
@testable import OTLPWire

/// Signal detection stays honest with metrics: a stream that turns to metrics after traces or logs records
/// says where the signal changes (record index, byte offset), never "malformed traces", and a metrics request
/// that happens to read as spans is not shown as spans.
@Suite("Metrics in a stream of another signal")
struct MetricsInStreamTests {
    static let traces = OTLPEncoder().encode(
        OTLPTracesData(
            resource: OTLPResource(attributes: [OTLPAttribute("service.name", "a")]), scope: OTLPInstrumentationScope(name: "s"),
            items: [
                OTLPSpan(
                    traceID: OTLPTraceID(high: 1, low: 2), spanID: OTLPSpanID(3), name: "GET", startTimeUnixNano: 5, endTimeUnixNano: 9)
            ]
        ))

    static let metricsModel = OTLPMetricsData(
        resource: OTLPResource(attributes: [OTLPAttribute("service.name", "a")]), scope: OTLPInstrumentationScope(name: "meter"),
        items: [
            OTLPMetric(name: "queue.depth", unit: "{item}", data: .gauge([OTLPNumberDataPoint(timeUnixNano: 7, value: .int(3))])),
            OTLPMetric(
                name: "requests",
                data: .sum([OTLPNumberDataPoint(timeUnixNano: 8, value: .double(1))], temporality: .delta, isMonotonic: true)),
        ])

    /// ResourceMetrics { ScopeMetrics { Metric { name (16 bytes), description (8), unit, gauge } } }: it reads as a
    /// span with IDs and no times (see MetricsEvidenceTests).
    static let metricsShapedLikeASpan: [UInt8] = {
        let point = OTLPProtobufBytes.fixed64Field(6, 5)
        let metric =
            OTLPProtobufBytes.field(1, Array("http.server.reqs".utf8)) + OTLPProtobufBytes.field(2, Array("requests".utf8))
            + OTLPProtobufBytes.field(3, Array("ms".utf8)) + OTLPProtobufBytes.field(5, OTLPProtobufBytes.field(1, point))
        return OTLPProtobufBytes.field(1, OTLPProtobufBytes.field(2, OTLPProtobufBytes.field(2, metric)))
    }()

    @Test("u32be: a metrics record after two traces records is wrong_kind at record 2, at its byte offset")
    func metricsAfterTracesProtobuf() {
        let metrics = OTLPEncoder().encode(Self.metricsModel)
        let outcome = StreamInputs.read(StreamInputs.u32be([Self.traces, Self.traces, metrics]))
        #expect(outcome.records.count == 2)
        #expect(outcome.error?.code == .wrongKind, "\(String(describing: outcome.error))")
        #expect(outcome.error?.recordIndex == 2)
        #expect(outcome.error?.byteOffset == 2 * (4 + Self.traces.count))
        #expect(outcome.error?.message.contains("the signal changes from traces to metrics at this record") == true)
    }

    @Test(
        "validate (records checked in place) says where the signal changes as reading does, for metrics after traces and after logs, and for a metrics record shaped like a span (regression: a malformed span)"
    )
    func validateSaysWhereTheSignalChanges() throws {
        let metrics = OTLPEncoder().encode(Self.metricsModel)
        let logs = OTLPEncoder().encode(
            OTLPLogsData(
                resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"),
                items: [OTLPLogRecord(timeUnixNano: 1, severity: .info, body: .string("x"))]))
        for (stream, first) in [
            ([Self.traces, Self.traces, metrics], "traces"), ([logs, logs, metrics], "logs"),
            ([Self.traces, Self.traces, Self.metricsShapedLikeASpan], "traces"),
        ] {
            let reader = try OTLPRecordReader(source: OTLPMemorySource(StreamInputs.u32be(stream)))
            var valid = 0
            do {
                while try reader.validateNext() != nil { valid += 1 }
                Issue.record("\(first): the metrics record validated")
            } catch {
                #expect(valid == 2)
                #expect(error.code == .wrongKind && error.recordIndex == 2, "\(first): \(error)")
                #expect(error.message.contains("the signal changes from \(first) to metrics at this record"), "\(error)")
            }
        }
    }

    @Test(
        "a metrics record over a limit, its signal not given, reports the limit (regression: worded as a span's or a log record's damage)"
    )
    func metricsOverALimitWithoutAHint() {
        let attributes = (0..<20).map { OTLPAttribute("key\($0)", .int(Int64($0))) }
        let metrics = OTLPEncoder().encode(
            OTLPMetricsData(
                resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "meter"),
                items: [
                    OTLPMetric(
                        name: "queue.depth", data: .gauge([OTLPNumberDataPoint(timeUnixNano: 7, value: .int(3), attributes: attributes)]))
                ]))
        let tooMany = StreamInputs.read(
            StreamInputs.u32be([metrics]), options: OTLPReaderOptions(decoding: OTLPDecodingOptions(maxAttributesPerItem: 10)))
        #expect(tooMany.error?.code == .tooManyAttributes, "\(String(describing: tooMany.error))")
        let tooLarge = StreamInputs.read(
            StreamInputs.u32be([metrics]), options: OTLPReaderOptions(decoding: OTLPDecodingOptions(maxDecodedBytes: 1024)))
        #expect(tooLarge.error?.code == .recordTooLarge, "\(String(describing: tooLarge.error))")
    }

    @Test("u32be: a metrics record that also reads as spans, after traces, is not delivered as spans")
    func metricsShapedLikeSpansAfterTraces() {
        let outcome = StreamInputs.read(StreamInputs.u32be([Self.traces, Self.metricsShapedLikeASpan]))
        #expect(outcome.records.count == 1 && outcome.items == 1)
        #expect(outcome.error?.code == .wrongKind && outcome.error?.recordIndex == 1, "\(String(describing: outcome.error))")
        #expect(outcome.error?.message.contains("the signal changes from traces to metrics at this record") == true)
    }

    @Test("JSON lines: a metrics line after a logs line says where the signal changes")
    func metricsAfterLogsJSON() {
        let logs = OTLPJSONEncoder().encode(
            OTLPLogsData(resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"), items: [OTLPLogRecord(timeUnixNano: 1)]))
        let metrics = OTLPJSONEncoder().encode(Self.metricsModel)
        let outcome = StreamInputs.read(logs + [0x0A] + metrics + [0x0A], name: "mixed.jsonl")
        #expect(outcome.records.count == 1)
        #expect(outcome.error?.code == .wrongKind && outcome.error?.recordIndex == 1, "\(String(describing: outcome.error))")
        #expect(outcome.error?.byteOffset == logs.count + 1)
        #expect(outcome.error?.message.contains("the signal changes from logs to metrics at this record") == true)
    }

    @Test("u32be and JSON lines: a metrics stream is read as metrics, and a traces record after it says where the signal changes")
    func tracesAfterMetrics() {
        let metrics = OTLPEncoder().encode(Self.metricsModel)
        let outcome = StreamInputs.read(StreamInputs.u32be([metrics, metrics, Self.traces]))
        #expect(outcome.records.count == 2)
        #expect(outcome.records.allSatisfy { if case .metrics(let data) = $0.payload { data == Self.metricsModel } else { false } })
        #expect(outcome.error?.code == .wrongKind && outcome.error?.recordIndex == 2, "\(String(describing: outcome.error))")
        #expect(outcome.error?.byteOffset == 2 * (4 + metrics.count))
        #expect(outcome.error?.message.contains("the signal changes from metrics to traces at this record") == true)

        let metricsLine = OTLPJSONEncoder().encode(Self.metricsModel)
        let tracesLine = OTLPJSONEncoder().encode(try! OTLPDecoder().decodeTraces(Self.traces))
        let lines = StreamInputs.read(metricsLine + [0x0A] + tracesLine + [0x0A], name: "mixed.jsonl")
        #expect(lines.records.count == 1)
        #expect(lines.error?.code == .wrongKind && lines.error?.recordIndex == 1, "\(String(describing: lines.error))")
        #expect(lines.error?.message.contains("the signal changes from metrics to traces at this record") == true)
    }
}
