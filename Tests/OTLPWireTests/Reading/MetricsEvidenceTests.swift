import Foundation
import OTLPTestSupport
import Testing
@testable import OTLPWire

/// A third of what the Collector writes is metrics. A protobuf metrics file is read as metrics, never misread as
/// damaged traces ("string field is not valid UTF-8") nor shown as spans.
@Suite("Metrics evidence")
struct MetricsEvidenceTests {
    /// Two ExportMetricsServiceRequests from the reference package, every point kind, exemplars with their trace
    /// context, packed and unpacked bucket counts; written u32be (raw) or as zstd records.
    static let referenceWriter = """
        import sys, zstandard
        from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
        from opentelemetry.proto.metrics.v1 import metrics_pb2 as m
        from opentelemetry.proto.common.v1.common_pb2 import KeyValue, AnyValue
        layout, out = sys.argv[1:3]
        def request(n):
            r = ExportMetricsServiceRequest()
            rm = r.resource_metrics.add()
            rm.resource.attributes.append(KeyValue(key="service.name", value=AnyValue(string_value="checkout")))
            sm = rm.scope_metrics.add()
            sm.scope.name = "meter"
            ex = m.Exemplar(time_unix_nano=5, as_double=1.5, trace_id=bytes(range(16)), span_id=bytes(range(8)))
            g = sm.metrics.add(name="queue.depth", unit="{item}")
            g.gauge.data_points.add(time_unix_nano=10 + n, as_int=7, exemplars=[ex])
            s = sm.metrics.add(name="requests", unit="{request}")
            s.sum.aggregation_temporality = 2
            s.sum.is_monotonic = True
            s.sum.data_points.add(start_time_unix_nano=1, time_unix_nano=10, as_double=3.25, flags=1)
            h = sm.metrics.add(name="latency", unit="ms")
            h.histogram.aggregation_temporality = 1
            h.histogram.data_points.add(count=3, sum=12.5, bucket_counts=[1, 2, 0], explicit_bounds=[5.0, 10.0], min=1.0, max=9.0)
            e = sm.metrics.add(name="size")
            p = e.exponential_histogram.data_points.add(count=4, scale=2, zero_count=1, zero_threshold=0.001)
            p.positive.offset = -3
            p.positive.bucket_counts.extend([1, 2])
            p.negative.bucket_counts.extend([1])
            q = sm.metrics.add(name="rpc.duration")
            q.summary.data_points.add(count=2, sum=3.0, quantile_values=[m.SummaryDataPoint.ValueAtQuantile(quantile=0.5, value=1.0)])
            return r.SerializeToString()
        data = bytearray()
        for n in range(2):
            body = request(n)
            if layout == "zstd-records":
                body = zstandard.ZstdCompressor().compress(body)
            data += len(body).to_bytes(4, "big") + body
        open(out, "wb").write(data)
        """

    @Test(
        "a protobuf metrics file from the reference package is read as metrics, raw or as zstd records",
        arguments: ["u32be", "zstd-records"])
    func referenceMetrics(layout: String) throws {
        let out = OTLPTemporaryDirectory.unusedPath("metrics", suffix: ".bin")
        defer { try? FileManager.default.removeItem(at: out) }
        try ZstdReadingTests.python(Self.referenceWriter, [layout, out.path])
        let outcome = StreamInputs.read([UInt8](try Data(contentsOf: out)))
        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        #expect(outcome.records.count == 2 && outcome.items == 10)
        #expect(outcome.records.allSatisfy { $0.payload.signal == .metrics })
        guard case .metrics(let first)? = outcome.records.first?.payload else { return }
        let names = first.resourceGroups.flatMap(\.scopeGroups).flatMap(\.items).map(\.name)
        #expect(names == ["queue.depth", "requests", "latency", "size", "rpc.duration"])
    }

    @Test("a metrics request with an exemplar trace ID of the wrong length is not metrics evidence: it stays a malformed request")
    func badExemplarID() {
        // ResourceMetrics { ScopeMetrics { Metric { name "m", gauge { NumberDataPoint { exemplars { trace_id (5 bytes) } } } } } }
        let exemplar = OTLPProtobufBytes.field(5, [1, 2, 3, 4, 5])
        let point = OTLPProtobufBytes.field(5, exemplar)
        let metric = OTLPProtobufBytes.field(1, Array("m".utf8)) + OTLPProtobufBytes.field(5, OTLPProtobufBytes.field(1, point))
        let request = OTLPProtobufBytes.field(1, OTLPProtobufBytes.field(2, OTLPProtobufBytes.field(2, metric)))
        let evidence = request.withUnsafeBytes { OTLPDecoder().signalEvidence($0) }
        guard case .invalid = evidence else {
            Issue.record("expected invalid evidence, got \(evidence)")
            return
        }
    }

    /// Regression (hostile review): a metric without data, its name 16 bytes, read as a span with that name as
    /// its trace ID (and went to /v1/traces with `send`), whatever the file's name said.
    @Test("a metric without data whose name is 16 bytes is read as metrics, not as a span without a name")
    func metricWithoutDataShapedLikeASpan() {
        let metric = OTLPProtobufBytes.field(1, Array("process.cpu.time".utf8)) + OTLPProtobufBytes.field(3, Array("s".utf8))
        let request = OTLPProtobufBytes.field(1, OTLPProtobufBytes.field(2, OTLPProtobufBytes.field(2, metric)))
        #expect((try? request.withUnsafeBytes { try OTLPDecoder().decodeTraces($0) })?.itemCount == 1)
        let evidence = request.withUnsafeBytes { OTLPDecoder().signalEvidence($0) }
        #expect(evidence == .decisive(.metrics), "\(evidence)")
        let outcome = StreamInputs.read(StreamInputs.u32be([request]))
        #expect(outcome.error == nil && outcome.records.first?.payload.signal == .metrics, "\(String(describing: outcome.error))")
    }

    /// Regression (hostile review): metrics whose exemplar trace ID has the wrong length read as damaged spans
    /// ("string field is not valid UTF-8"), the message the issue started from.
    @Test("metrics with a damaged exemplar ID are reported as metrics, naming the exemplar's field, after the records before")
    func damagedExemplarReportedAsMetrics() {
        let exemplar = OTLPProtobufBytes.fixed64Field(2, 7) + OTLPProtobufBytes.field(5, [1, 2, 3, 4, 5])
        let point =
            OTLPProtobufBytes.fixed64Field(3, 1_700_000_000_000_000_000) + OTLPProtobufBytes.fixed64Field(4, 0x3FF0_0000_0000_0000)
            + OTLPProtobufBytes.field(5, exemplar)
        func request(_ point: [UInt8]) -> [UInt8] {
            let metric =
                OTLPProtobufBytes.field(1, Array("http.server.duration".utf8))
                + OTLPProtobufBytes.field(5, OTLPProtobufBytes.field(1, point))
            return OTLPProtobufBytes.field(1, OTLPProtobufBytes.field(2, OTLPProtobufBytes.field(2, metric)))
        }
        let good = request(OTLPProtobufBytes.fixed64Field(3, 1_700_000_000_000_000_000))
        let outcome = StreamInputs.read(StreamInputs.u32be([good, request(point)]))
        #expect(outcome.records.count == 1 && outcome.records.first?.payload.signal == .metrics)
        #expect(outcome.error?.recordIndex == 1)
        #expect(outcome.error?.message.contains("exemplar trace_id is 5 bytes") == true, "\(String(describing: outcome.error))")
        let alone = StreamInputs.read(StreamInputs.u32be([request(point)]))
        #expect(alone.error?.message.contains("exemplar trace_id is 5 bytes") == true, "\(String(describing: alone.error))")
    }

    /// Regression (hostile review, second round; older than the metrics work): a single damaged span or log
    /// record, in a file whose name names no signal, was worded as the other signal's damage ("not a valid logs
    /// request" for a span with a 5-byte trace ID).
    @Test("a span or log record with an ID of the wrong length is reported as its own signal's damage, the signal not given")
    func damagedIDNamesItsOwnSignal() {
        let fixed64 = OTLPProtobufBytes.fixed64Field
        let field = OTLPProtobufBytes.field
        let span =
            field(1, [1, 2, 3, 4, 5]) + field(2, [1, 2, 3, 4, 5, 6, 7, 8]) + field(5, Array("GET /users".utf8)) + fixed64(7, 1_000)
            + fixed64(8, 2_000)
        let logRecord =
            fixed64(1, 1_000) + OTLPProtobufBytes.varintField(2, 9) + field(5, field(1, Array("hello".utf8)))
            + field(9, [1, 2, 3, 4, 5])
        for (record, expected) in [(span, "span trace_id is 5 bytes"), (logRecord, "log record trace_id is 5 bytes")] {
            let request = field(1, field(2, field(2, record)))
            let outcome = StreamInputs.read(StreamInputs.u32be([request]))
            #expect(outcome.error?.message.contains(expected) == true, "\(String(describing: outcome.error))")
        }
    }

    /// Regression (hostile review, second round): ranking the signals by how far their scans read took a damaged
    /// log record that decodes as an unnamed histogram for metrics, and accepted it.
    @Test("a damaged log record that decodes as metrics with no metric-like name is not accepted as metrics")
    func damagedLogRecordIsNotMetrics() {
        // ResourceLogs { ScopeLogs { LogRecord { severity_text "INFO", trace_id (5 bytes) } } }
        let record = OTLPProtobufBytes.field(3, Array("INFO".utf8)) + OTLPProtobufBytes.field(9, [0x10, 0x81, 0x01, 0x10, 0x02])
        let request = OTLPProtobufBytes.field(1, OTLPProtobufBytes.field(2, OTLPProtobufBytes.field(2, record)))
        #expect((try? request.withUnsafeBytes { try OTLPDecoder().decodeMetrics($0) }) != nil)  // the shape that fooled it
        let outcome = StreamInputs.read(StreamInputs.u32be([request]))
        #expect(outcome.records.isEmpty && outcome.error != nil, "\(outcome.records.map(\.payload.signal))")
    }

    /// Regression (hostile review): a gauge whose name is 16 bytes and description 8 read as a span (the name
    /// as its trace ID, the description as its span ID, the unit as its trace state, the gauge as its name), so
    /// `validate` called a metrics file "1 spans".
    @Test("a metrics request that also reads as traces is read as metrics, not shown as a span")
    func metricsShapedLikeASpan() {
        // ResourceMetrics { ScopeMetrics { Metric { name (16), description (8), unit "ms", gauge { NumberDataPoint { as_int 5 } } } } }
        let point = OTLPProtobufBytes.fixed64Field(6, 5)
        let metric =
            OTLPProtobufBytes.field(1, Array("http.server.reqs".utf8)) + OTLPProtobufBytes.field(2, Array("requests".utf8))
            + OTLPProtobufBytes.field(3, Array("ms".utf8)) + OTLPProtobufBytes.field(5, OTLPProtobufBytes.field(1, point))
        let request = OTLPProtobufBytes.field(1, OTLPProtobufBytes.field(2, OTLPProtobufBytes.field(2, metric)))
        // The shape that fooled detection: as traces alone, it decodes.
        #expect((try? request.withUnsafeBytes { try OTLPDecoder().decodeTraces($0) })?.itemCount == 1)
        let evidence = request.withUnsafeBytes { OTLPDecoder().signalEvidence($0) }
        #expect(evidence == .decisive(.metrics), "\(evidence)")
        let outcome = StreamInputs.read(StreamInputs.u32be([request]))
        #expect(outcome.error == nil && outcome.records.count == 1 && outcome.records.first?.payload.signal == .metrics)
    }
}
