import Foundation
import OTLPTestSupport
import OTLPWire
import Testing

/// `otlp-dump` on metrics files made by the reference package (scripts/reference-metrics.py): validate, convert
/// (byte-identical round trips), stats, print (tree and JSON) and send to `/v1/metrics`.
@Suite("otlp-dump with metrics", .serialized)
struct MetricsCommandTests {
    /// The directory holding the reference's `metrics.u32be.bin` and `metrics.jsonl`, written once per run.
    static let fixtures: Result<URL, any Error> = Result {
        let directory = try OTLPTemporaryDirectory.make("dump-metrics")
        let script = OTLPProcess.repository.appendingPathComponent("scripts/reference-metrics.py").path
        let result = try OTLPProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script, directory.path])
        guard result.status == 0 else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: result.errors]) }
        return directory
    }

    static func fixture(_ name: String) throws -> String { try fixtures.get().appendingPathComponent(name).path }

    /// The reference's requests, as the library reads them.
    static func requests() throws -> [OTLPMetricsData] {
        let reader = try OTLPRecordReader(path: try fixture("metrics.u32be.bin"))
        var requests: [OTLPMetricsData] = []
        while let record = try reader.next() {
            guard case .metrics(let data) = record.payload else { throw CocoaError(.fileReadCorruptFile) }
            requests.append(data)
        }
        return requests
    }

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    @Test("validate: a metrics file in protobuf and in JSON lines is valid, its metrics counted")
    func validate() throws {
        let metrics = try Self.requests().reduce(0) { $0 + $1.itemCount }
        for name in ["metrics.u32be.bin", "metrics.jsonl"] {
            let result = try OTLPDumpRunner.run(["validate", try Self.fixture(name)])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect(result.stdout.contains("valid, 2 records, \(metrics) metrics"), "\(result.stdout)")
        }
        let asTraces = try OTLPDumpRunner.run(["validate", "--signal", "traces", try Self.fixture("metrics.u32be.bin")])
        #expect(asTraces.status == 1 && asTraces.stderr.contains("record 0"), "\(asTraces.stderr)")
    }

    @Test("convert: u32be → jsonl → u32be and u32be → zstd records → u32be give the reference's bytes back; jsonl → zstd → jsonl too")
    func convertRoundTrips() throws {
        let directory = try OTLPTemporaryDirectory.make("dump-metrics-convert")
        defer { try? FileManager.default.removeItem(at: directory) }
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        let original = try Self.fixture("metrics.u32be.bin")
        for (input, output, options) in [
            (original, path("a.jsonl"), ["--to", "jsonl"]), (path("a.jsonl"), path("b.u32be.bin"), ["--to", "u32be"]),
            (original, path("c.u32be.bin.zst"), ["--to", "u32be", "--zstd"]),
            (path("c.u32be.bin.zst"), path("d.u32be.bin"), ["--to", "u32be"]),
            (path("a.jsonl"), path("e.jsonl.zst"), ["--to", "jsonl", "--zstd"]), (path("e.jsonl.zst"), path("f.jsonl"), ["--to", "jsonl"]),
            (original, path("g.varint.bin"), ["--to", "varint"]), (path("g.varint.bin"), path("h.u32be.bin"), ["--to", "u32be"]),
        ] {
            let result = try OTLPDumpRunner.run(["convert", input, output] + options)
            #expect(result.status == 0, "\(input) → \(output): \(result.stderr)")
        }
        let reference = try Self.bytes(original)
        #expect(try Self.bytes(path("b.u32be.bin")) == reference)
        #expect(try Self.bytes(path("d.u32be.bin")) == reference)
        #expect(try Self.bytes(path("h.u32be.bin")) == reference)
        #expect(try Self.bytes(path("f.jsonl")) == (try Self.bytes(path("a.jsonl"))))
        #expect(try Self.bytes(path("c.u32be.bin.zst")) != reference)
        // Our JSON lines read as the reference's JSON lines do.
        let ours = try OTLPRecordReader(path: path("a.jsonl"))
        var read: [OTLPMetricsData] = []
        while let record = try ours.next() { if case .metrics(let data) = record.payload { read.append(data) } }
        #expect(read == (try Self.requests()))
    }

    @Test("stats: metrics and data points per metric name and type")
    func stats() throws {
        let result = try OTLPDumpRunner.run(["stats", try Self.fixture("metrics.u32be.bin")])
        #expect(result.status == 0, "\(result.stderr)")
        var metrics: [String: Int] = [:]
        var points: [String: Int] = [:]
        for request in try Self.requests() {
            for metric in request.resourceGroups.flatMap(\.scopeGroups).flatMap(\.items) {
                let kind: String
                let count: Int
                switch metric.data {
                case .gauge(let p)?: (kind, count) = ("gauge", p.count)
                case .sum(let p, _, _)?: (kind, count) = ("sum", p.count)
                case .histogram(let p, _)?: (kind, count) = ("histogram", p.count)
                case .exponentialHistogram(let p, _)?: (kind, count) = ("exponential_histogram", p.count)
                case .summary(let p)?: (kind, count) = ("summary", p.count)
                case nil: (kind, count) = ("no data", 0)
                }
                metrics["\(metric.name) (\(kind))", default: 0] += 1
                points["\(metric.name) (\(kind))", default: 0] += count
            }
        }
        #expect(!metrics.isEmpty)
        let sections = result.stdout.components(separatedBy: "\nby ")
        let metricSection = try #require(sections.first { $0.hasPrefix("metric (type):") })
        let pointSection = try #require(sections.first { $0.hasPrefix("metric (type), data points:") })
        for (key, count) in metrics {
            #expect(metricSection.contains("\(String(count).leftPadded(8))  \(key)\n"), "\(key) \(count): \(metricSection)")
            #expect(pointSection.contains("\(String(points[key]!).leftPadded(8))  \(key)\n"), "\(key) \(points[key]!): \(pointSection)")
        }
        let total = metrics.values.reduce(0, +)
        #expect(result.stdout.contains("by signal:\n  \(String(total).leftPadded(8))  metrics\n"), "\(result.stdout)")
    }

    @Test("print --format json writes each request as an OTLP JSON line that reads back equal")
    func printJSON() throws {
        let result = try OTLPDumpRunner.run(["print", "--format", "json", "--signal", "metrics", try Self.fixture("metrics.u32be.bin")])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map { Array($0.utf8) }
        let decoded = try lines.map { try OTLPJSONDecoder().decodeMetrics($0) }
        #expect(decoded == (try Self.requests()))
    }

    @Test("print draws resource, scope, each metric's name, type, unit, temporality, monotonicity and its points")
    func printTree() throws {
        let result = try OTLPDumpRunner.run(["print", "--color", "never", try Self.fixture("metrics.u32be.bin")])
        #expect(result.status == 0, "\(result.stderr)")
        let text = result.stdout
        #expect(text.contains("service.name=\"checkout\""), "\(text)")
        #expect(text.contains("scope io.example.meter 1.2.3"))
        #expect(text.contains("metric queue.depth · gauge · unit={item}"))
        #expect(text.contains("value=-7") && text.contains("value=2.5") && text.contains("value=(none)"))
        #expect(text.contains("exemplar "))
        let requests = try Self.requests()
        for metric in requests.flatMap({ $0.resourceGroups.flatMap(\.scopeGroups).flatMap(\.items) }) {
            #expect(text.contains("metric \(metric.name) · "), "\(metric.name)")
            switch metric.data {
            case .sum(_, let temporality, let monotonic)?:
                #expect(text.contains("\(temporality) · \(monotonic ? "monotonic" : "not monotonic")"))
            case .histogram(let points, _)?:
                #expect(points.allSatisfy { $0.bucketCounts.isEmpty } || text.contains(" buckets (-inf,"))
            case .summary(let points)?:
                for quantile in points.flatMap(\.quantileValues) { #expect(text.contains("q\(quantile.quantile)=\(quantile.value)")) }
            default: break
            }
        }
        let brief = try OTLPDumpRunner.run(["print", "--brief", "--color", "never", try Self.fixture("metrics.u32be.bin")])
        #expect(brief.status == 0 && !brief.stdout.contains("exemplar "))
    }

    @Test("send posts each metrics record to /v1/metrics: every data point arrives equal", arguments: ["http/protobuf", "http/json"])
    func send(wireProtocol: String) throws {
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let path = try Self.fixture("metrics.u32be.bin")
        // Uncompressed, so that protobuf records are seen to be sent as they are.
        let result = try OTLPDumpRunner.run([
            "send", path, "--endpoint", collector.endpoint, "--protocol", wireProtocol, "--compression", "none",
        ])
        collector.stop()
        #expect(result.status == 0, "\(result.stderr)")
        let metrics = try Self.requests().reduce(0) { $0 + $1.itemCount }
        #expect(result.stdout.hasPrefix("accepted 2 records (0 spans, 0 log records, \(metrics) metrics, "), "\(result.stdout)")
        #expect(result.stdout.contains("/v1/metrics"), "\(result.stdout)")
        #expect(collector.requests.count == 2 && collector.requests.allSatisfy { $0.path == "/v1/metrics" })
        if wireProtocol == "http/protobuf" {
            #expect(collector.requests.map(\.body) == (try Self.requests()).map { OTLPEncoder().encode($0) })
        }
        let expected = try OTLPTestCollector.canonicalItems(ofFile: path, signal: "metrics")
        #expect(expected.count > metrics)  // one line per data point
        #expect(collector.items == expected)
    }

    /// Regression: `--severity-min` and `--trace-id` printed nothing for metrics without a word.
    @Test("filters: --trace-id keeps metrics with an exemplar of the trace; --severity-min leaves metrics out and says so")
    func filters() throws {
        let path = try Self.fixture("metrics.u32be.bin")
        let metrics = try Self.requests().flatMap { $0.resourceGroups.flatMap(\.scopeGroups).flatMap(\.items) }
        func exemplarTraceIDs(_ metric: OTLPMetric) -> [OTLPTraceID] {
            switch metric.data {
            case .gauge(let points)?, .sum(let points, _, _)?: points.flatMap(\.exemplars).compactMap(\.traceID)
            case .histogram(let points, _)?: points.flatMap(\.exemplars).compactMap(\.traceID)
            case .exponentialHistogram(let points, _)?: points.flatMap(\.exemplars).compactMap(\.traceID)
            default: []
            }
        }
        let traceID = try #require(metrics.lazy.flatMap(exemplarTraceIDs).first)
        let kept = metrics.filter { exemplarTraceIDs($0).contains(traceID) }
        let traced = try OTLPDumpRunner.run(["print", "--color", "never", "--trace-id", traceID.hex, path])
        #expect(traced.status == 0, "\(traced.stderr)")
        for metric in metrics {
            #expect(traced.stdout.contains("metric \(metric.name) · ") == kept.contains(metric), "\(metric.name): \(traced.stdout)")
        }
        let other = try OTLPDumpRunner.run(["print", "--trace-id", String(repeating: "ab", count: 16), path])
        #expect(other.status == 0 && !other.stdout.contains("metric "), "\(other.stdout)")

        for command in ["print", "stats"] {
            let severe = try OTLPDumpRunner.run([command, "--severity-min", "error", path])
            #expect(severe.status == 0, "\(severe.stderr)")
            #expect(!severe.stdout.contains("metric queue.depth"), "\(severe.stdout)")
            #expect(
                severe.stderr.contains("--severity-min keeps log records only: \(metrics.count) metrics left out"),
                "\(command): \(severe.stderr)")
        }
        let unfiltered = try OTLPDumpRunner.run(["print", path])
        #expect(!unfiltered.stderr.contains("left out"), "\(unfiltered.stderr)")
        // Regression: with --format json, each record the filters left empty was written as `{}`.
        let severeJSON = try OTLPDumpRunner.run(["print", "--format", "json", "--severity-min", "error", path])
        #expect(severeJSON.status == 0 && severeJSON.stdout.isEmpty, "\(severeJSON.stdout)")
        let tracedJSON = try OTLPDumpRunner.run(["print", "--format", "json", "--trace-id", traceID.hex, path])
        #expect(tracedJSON.stdout.split(separator: "\n").allSatisfy { $0.contains("resourceMetrics") }, "\(tracedJSON.stdout)")
        let allJSON = try OTLPDumpRunner.run(["print", "--format", "json", path])
        #expect(allJSON.stdout.split(separator: "\n").count == 2)
    }

    /// Regression: a histogram point with bounds and no bucket counts showed no bounds, as if it had none.
    @Test("print shows a histogram point's bounds when its bucket counts are missing")
    func boundsWithoutCounts() throws {
        let point = OTLPHistogramDataPoint(timeUnixNano: 1, count: 3, explicitBounds: [0, 5])
        let request = OTLPMetricsData(
            resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"),
            items: [OTLPMetric(name: "latency", data: .histogram([point], temporality: .delta))])
        let file = OTLPTemporaryDirectory.unusedPath("dump-metrics-bounds", suffix: ".pb")
        try Data(OTLPEncoder().encode(request)).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try OTLPDumpRunner.run(["print", "--color", "never", "--framing", "none", "--signal", "metrics", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("count=3 bounds 0.0 5.0 (no bucket counts)"), "\(result.stdout)")
    }

    /// Regression: a multi-record file converted `--to none` left its first message in the output.
    @Test("convert --to none: one record is written as a bare message; a file of several is a usage error that leaves the output alone")
    func convertToNone() throws {
        let directory = try OTLPTemporaryDirectory.make("dump-metrics-none")
        defer { try? FileManager.default.removeItem(at: directory) }
        // The input is read to its end before the output is opened: an existing file is left as it was
        // (regression: truncated to nothing), and no file is made where none was.
        let existing = directory.appendingPathComponent("existing.pb")
        try Data("precious".utf8).write(to: existing)
        let missing = directory.appendingPathComponent("missing.pb")
        for output in [existing, missing] {
            let refused = try OTLPDumpRunner.run(["convert", try Self.fixture("metrics.u32be.bin"), output.path, "--to", "none"])
            #expect(refused.status == 64 && refused.stderr.contains("nothing written"), "\(refused.stderr)")
        }
        #expect(try Self.bytes(existing.path) == Array("precious".utf8))
        #expect(!FileManager.default.fileExists(atPath: missing.path))

        let first = try #require(Self.requests().first)
        let single = directory.appendingPathComponent("single.u32be.bin")
        let body = OTLPEncoder().encode(first)
        let length = UInt32(body.count).bigEndian
        try Data(withUnsafeBytes(of: length) { Array($0) } + body).write(to: single)
        let message = directory.appendingPathComponent("single.pb").path
        let converted = try OTLPDumpRunner.run(["convert", single.path, message, "--to", "none"])
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(try Self.bytes(message) == body)
    }

    /// Regression: `--endpoint …/v1/metrics` posted to `/v1/metrics/v1/metrics` without a word, and a failed
    /// send's summary left metrics out.
    @Test("send: an endpoint ending in /v1/metrics is taken off with a warning; a refused send's summary counts metrics")
    func sendEndpointAndRefusal() throws {
        let path = try Self.fixture("metrics.u32be.bin")
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let result = try OTLPDumpRunner.run(["send", path, "--endpoint", collector.endpoint + "/v1/metrics"])
        collector.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("its /v1/metrics is taken off"), "\(result.stderr)")
        #expect(collector.requests.count == 2 && collector.requests.allSatisfy { $0.path == "/v1/metrics" })

        let refusing = try OTLPTestCollector(
            answers: Array(repeating: .init(status: 401, headers: ["Content-Type": "text/plain"], body: Array("no".utf8)), count: 10))
        defer { refusing.removeRecords() }
        let refused = try OTLPDumpRunner.run(["send", path, "--endpoint", refusing.endpoint])
        refusing.stop()
        #expect(refused.status == 3, "\(refused.stderr)")
        #expect(refused.stdout.hasPrefix("accepted 0 records (0 spans, 0 log records, 0 metrics, "), "\(refused.stdout)")
    }

    /// Regression: a partial success's rejected data points were capped at the request's metric count and
    /// counted as rejected metrics ("4 data points rejected" for 7; "rejected 8 items" of 8 metrics).
    @Test("send: a metrics partial success is counted in data points, as the collector counts them, up to the points sent")
    func partialSuccessInDataPoints() throws {
        let requests = try Self.requests()
        let points = requests.map(\.dataPointCount)
        let rejected = [min(7, points[0]), Int(Int64.max)]
        let collector = try OTLPTestCollector(
            answers: rejected.map { count in
                .init(
                    status: 200, headers: ["Content-Type": "application/json"],
                    body: Array(#"{"partialSuccess":{"rejectedDataPoints":"\#(count)","errorMessage":"too old"}}"#.utf8))
            })
        defer { collector.removeRecords() }
        let result = try OTLPDumpRunner.run(["send", try Self.fixture("metrics.u32be.bin"), "--endpoint", collector.endpoint])
        collector.stop()
        #expect(result.status == 3, "\(result.stderr)")
        #expect(
            result.stderr.contains("record 0: the collector accepted the request partly: \(rejected[0]) data points rejected: too old"),
            "\(result.stderr)")
        #expect(
            result.stderr.contains("record 1: the collector accepted the request partly: \(points[1]) data points rejected"),
            "\(result.stderr)")
        let metrics = requests.reduce(0) { $0 + $1.itemCount }
        #expect(result.stdout.contains("\(metrics) metrics, "), "\(result.stdout)")
        #expect(
            result.stdout.contains("of which the collector rejected \(rejected[0] + points[1]) data points of metrics"), "\(result.stdout)")
    }

    /// Over http/protobuf only: with http/json, the installed rotel loses metric data it parses from OTLP JSON
    /// (the data of several metrics and integer point values arrive empty), while the reference package reads the
    /// same bodies whole (``send(wireProtocol:)``).
    @Test(
        "send through rotel: every data point of the reference's protobuf and JSON files arrives equal",
        arguments: ["http/protobuf"])
    func sendThroughRotel(wireProtocol: String) throws {
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let rotel = try OTLPRotel(forwardingTo: collector)
        var expected: [String] = []
        for (name, framing) in [("metrics.u32be.bin", "u32be"), ("metrics.jsonl", "jsonl")] {
            let path = try Self.fixture(name)
            let result = try OTLPDumpRunner.run(["send", path, "--endpoint", rotel.endpoint, "--protocol", wireProtocol])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            expected += try OTLPTestCollector.canonicalItems(ofFile: path, framing: framing, signal: "metrics")
        }
        rotel.stop()
        collector.stop()
        #expect(collector.requests.allSatisfy { $0.path == "/v1/metrics" })
        #expect(collector.items.sorted() == expected.sorted())
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
