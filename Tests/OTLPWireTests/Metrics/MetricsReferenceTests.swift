import Foundation
import OTLPTestSupport
import Testing
@testable import OTLPWire

/// Metrics requests written by the reference opentelemetry-proto package (scripts/reference-metrics.py): every
/// data kind read from protobuf and from OTLP JSON to equal models, encoded back to the reference's bytes, and
/// repeated fields merged as the reference merges them.
@Suite("Metrics against the reference package")
struct MetricsReferenceTests {
    /// The fixtures of scripts/reference-metrics.py, written once per test run.
    struct Fixtures {
        let directory: URL
        let requests: [[UInt8]]
        let jsonLines: [[UInt8]]
        let merged: [[UInt8]]
        let mergedCanonical: [[UInt8]]
    }

    static let fixtures: Result<Fixtures, any Error> = Result {
        let directory = try OTLPTemporaryDirectory.make("metrics-reference")
        let script = OTLPProcess.repository.appendingPathComponent("scripts/reference-metrics.py").path
        let result = try OTLPProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script, directory.path])
        guard result.status == 0 else { throw OTLPProcessFailure(message: "reference-metrics.py: \(result.errors)") }
        func file(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: directory.appendingPathComponent(name))) }
        return Fixtures(
            directory: directory, requests: try u32beRecords(file("metrics.u32be.bin")),
            jsonLines: try file("metrics.jsonl").split(separator: UInt8(ascii: "\n")).map { Array($0) },
            merged: try u32beRecords(file("merged.u32be.bin")), mergedCanonical: try u32beRecords(file("merged-canonical.u32be.bin")))
    }

    struct OTLPProcessFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    static func u32beRecords(_ bytes: [UInt8]) throws -> [[UInt8]] { OTLPFramedRecords.u32be(bytes) }

    @Test("every request decodes from protobuf and from the reference's OTLP JSON to the same model")
    func protobufAndJSONAgree() throws {
        let fixtures = try Self.fixtures.get()
        #expect(fixtures.requests.count == 2 && fixtures.jsonLines.count == 2)
        for (index, (record, line)) in zip(fixtures.requests, fixtures.jsonLines).enumerated() {
            let fromProtobuf = try OTLPDecoder().decodeMetrics(record)
            let fromJSON = try line.withUnsafeBytes { try OTLPJSONDecoder().decodeMetrics($0) }
            #expect(fromProtobuf == fromJSON, "request \(index)")
        }
    }

    @Test("what the reference wrote is read field by field: values, buckets, exemplars, presence")
    func contentIsRead() throws {
        let fixtures = try Self.fixtures.get()
        let first = try OTLPDecoder().decodeMetrics(fixtures.requests[0])
        #expect(first.resourceGroups.count == 2 && first.resourceGroups[1].resource == nil)
        #expect(first.resourceGroups[0].schemaURL == "https://opentelemetry.io/schemas/1.26.0")
        let scopeGroup = first.resourceGroups[0].scopeGroups[0]
        #expect(scopeGroup.scope?.name == "io.example.meter" && scopeGroup.schemaURL == "https://example.com/scope")
        let metrics = scopeGroup.items
        #expect(metrics.map(\.name) == ["queue.depth", "http.server.requests", "bytes.delta", "http.server.duration"])
        #expect(metrics[0].description == "items waiting" && metrics[0].unit == "{item}")
        #expect(metrics[0].metadata == [OTLPAttribute("prometheus.type", "gauge")])
        guard case .gauge(let gauge)? = metrics[0].data else { throw OTLPProcessFailure(message: "not a gauge: \(metrics[0])") }
        #expect(gauge.map(\.value) == [.int(-7), .double(2.5), nil, .int(0)])
        #expect(gauge.map(\.flags) == [0, 0, 1, 0])
        let exemplar = try #require(gauge[0].exemplars.first)
        #expect(exemplar.value == .int(3) && exemplar.timeUnixNano == 1_700_000_000_000_000_001)
        #expect(exemplar.traceID?.hex == "0102030405060708090a0b0c0d0e0f10" && exemplar.spanID?.hex == "0102030405060708")
        #expect(exemplar.filteredAttributes == [OTLPAttribute("user.id", "u1"), OTLPAttribute("retry", 1)])
        guard case .sum(let sum, let temporality, let isMonotonic)? = metrics[1].data else {
            throw OTLPProcessFailure(message: "not a sum")
        }
        #expect(temporality == .cumulative && isMonotonic && sum[0].timeUnixNano == .max && sum[0].exemplars.count == 2)
        #expect(sum[0].exemplars[1].value == nil)
        guard case .sum(let delta, .delta, false)? = metrics[2].data else { throw OTLPProcessFailure(message: "not a delta sum") }
        #expect(delta[0].value == .int(.max))
        guard case .histogram(let histogram, .delta)? = metrics[3].data else { throw OTLPProcessFailure(message: "not a histogram") }
        #expect(histogram[0].count == 6 && histogram[0].sum == 12.5 && histogram[0].min == 0.001 && histogram[0].max == 9.75)
        #expect(histogram[0].bucketCounts == [1, 2, 0, 3] && histogram[0].explicitBounds == [5, 10, 1e300])
        #expect(histogram[1].sum == nil && histogram[1].min == nil && histogram[1].max == nil)
        #expect(histogram[2].sum == 0 && histogram[2].min == 0 && histogram[2].max == 0)

        let second = try OTLPDecoder().decodeMetrics(fixtures.requests[1])
        let items = second.resourceGroups[0].scopeGroups[0].items
        #expect(second.resourceGroups[0].scopeGroups[0].scope == nil)
        guard case .exponentialHistogram(let points, .cumulative)? = items[0].data else {
            throw OTLPProcessFailure(message: "not an exponential histogram")
        }
        #expect(points[0].scale == -3 && points[0].zeroCount == 2 && points[0].zeroThreshold == 1e-9 && points[0].sum == -4.5)
        #expect(points[0].positive == .init(offset: -3, bucketCounts: [1, 0, 2, .max]))
        #expect(points[0].negative == .init(offset: 2, bucketCounts: [4]))
        #expect(points[0].min == -3 && points[0].max == 2048 && points[0].flags == 1 && points[0].exemplars[0].value == .int(-1))
        #expect(points[1].positive == nil && points[1].negative == nil && points[1].sum == nil && points[1].scale == 20)
        #expect(points[2].positive == .init() && points[2].negative == nil)
        guard case .summary(let summary)? = items[1].data else { throw OTLPProcessFailure(message: "not a summary") }
        #expect(summary[0].count == 100 && summary[0].sum == 51.5)
        #expect(
            summary[0].quantileValues == [.init(quantile: 0, value: 0.01), .init(quantile: 0.99, value: 2), .init(quantile: 1, value: 0)])
        #expect(items[2].name == "no.data" && items[2].data == nil)
        #expect(items[3].name == "empty.gauge" && items[3].data == .gauge([]))
    }

    @Test("the encoder writes the reference's exact bytes for every request")
    func protobufEncodingIsByteIdentical() throws {
        let fixtures = try Self.fixtures.get()
        let encoder = OTLPEncoder()
        for (index, record) in fixtures.requests.enumerated() {
            #expect(encoder.encode(try OTLPDecoder().decodeMetrics(record)) == record, "request \(index)")
        }
    }

    /// Regression: the metrics builder allocated from the arena behind its block, so each request grew a chunk
    /// twice the last; the 17th request of one encoder asked for 32 GiB and the process trapped.
    @Test("one encoder encodes many metrics requests in a row, each to the same bytes")
    func manyRequestsOnOneEncoder() throws {
        let fixtures = try Self.fixtures.get()
        let encoder = OTLPEncoder()
        let requests = try fixtures.requests.map { try OTLPDecoder().decodeMetrics($0) }
        for round in 0..<64 {
            for (index, request) in requests.enumerated() {
                #expect(encoder.encode(request) == fixtures.requests[index], "round \(round), request \(index)")
            }
        }
    }

    @Test("our OTLP JSON reads back to the same model, and the reference reads it as the same requests")
    func jsonEncodingRoundTrips() throws {
        let fixtures = try Self.fixtures.get()
        var lines: [UInt8] = []
        for record in fixtures.requests {
            let data = try OTLPDecoder().decodeMetrics(record)
            let json = OTLPJSONEncoder().encode(data)
            #expect(try json.withUnsafeBytes { try OTLPJSONDecoder().decodeMetrics($0) } == data)
            lines += json + [UInt8(ascii: "\n")]
        }
        let ours = fixtures.directory.appendingPathComponent("ours.jsonl")
        try Data(lines).write(to: ours)
        let fromOurJSON = try OTLPProcess.referenceDecode(ours.path, framing: "lines", signal: "metrics")
        let fromReference = try OTLPProcess.referenceDecode(
            fixtures.directory.appendingPathComponent("metrics.u32be.bin").path, framing: "u32be", signal: "metrics")
        #expect(fromReference.status == 0, "\(fromReference.errors)")
        #expect(fromOurJSON.status == 0, "\(fromOurJSON.errors)")
        #expect(fromOurJSON.output == fromReference.output && !fromReference.output.isEmpty)
    }

    @Test("repeated singular fields merge as the reference merges them: metric data, buckets, a data point's oneof")
    func mergeRulesMatchTheReference() throws {
        let fixtures = try Self.fixtures.get()
        #expect(fixtures.merged.count == 6 && fixtures.mergedCanonical.count == 6)
        for (index, (merged, canonical)) in zip(fixtures.merged, fixtures.mergedCanonical).enumerated() {
            let ours = try OTLPDecoder().decodeMetrics(merged)
            #expect(ours == (try OTLPDecoder().decodeMetrics(canonical)), "request \(index)")
            #expect(OTLPEncoder().encode(ours) == canonical, "request \(index)")
        }
    }
}
