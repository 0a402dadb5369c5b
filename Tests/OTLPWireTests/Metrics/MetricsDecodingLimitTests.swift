import OTLPTestSupport
import Testing
@testable import OTLPWire

/// Metrics are read under the limits spans and logs are read under, and a request of another kind is named.
@Suite("Metrics decoding limits and kinds")
struct MetricsDecodingLimitTests {
    /// The read error `body` throws; `nil` when it throws nothing (or another error).
    static func readError(_ body: () throws -> Void) -> OTLPReadError? {
        do {
            try body()
            return nil
        } catch {
            return error as? OTLPReadError
        }
    }

    /// ResourceMetrics { ScopeMetrics { `metric` } }.
    static func request(_ metric: [UInt8]) -> [UInt8] {
        OTLPProtobufBytes.field(1, OTLPProtobufBytes.field(2, OTLPProtobufBytes.field(2, metric)))
    }

    /// An exponential histogram metric with one point whose positive buckets hold `buckets` packed counts, each a
    /// 1-byte varint on the wire.
    static func histogram(buckets: Int) -> [UInt8] {
        let positive = OTLPProtobufBytes.field(8, OTLPProtobufBytes.field(2, [UInt8](repeating: 0, count: buckets)))
        return OTLPProtobufBytes.field(1, Array("h".utf8)) + OTLPProtobufBytes.field(10, OTLPProtobufBytes.field(1, positive))
    }

    /// Regression: the pre-scan counted a packed repeated varint field at its wire size, so 1-byte bucket counts
    /// (8 bytes each once decoded) passed maxDecodedBytes at an eighth of what they take.
    @Test("packed bucket counts are charged at their decoded size against maxDecodedBytes")
    func packedBucketCountsAreChargedDecoded() throws {
        let request = Self.request(Self.histogram(buckets: 100_000))
        let roomy = OTLPDecoder(options: OTLPDecodingOptions(maxDecodedBytes: 4_000_000))
        let decoded = try roomy.decodeMetrics(request)
        guard case .exponentialHistogram(let points, _)? = decoded.resourceGroups[0].scopeGroups[0].items[0].data else {
            Issue.record("not an exponential histogram")
            return
        }
        #expect(points[0].positive?.bucketCounts.count == 100_000)
        // 100 kB on the wire, 800 kB in protobuf-c's array and 800 kB more in the model's.
        let tight = OTLPDecoder(options: OTLPDecodingOptions(maxDecodedBytes: 1_000_000))
        #expect(Self.readError { _ = try tight.decodeMetrics(request) }?.code == .recordTooLarge)
    }

    @Test("a data point over maxAttributesPerItem is too_many_attributes, naming the point")
    func tooManyAttributesOnAPoint() {
        let attribute = OTLPProtobufBytes.field(7, OTLPProtobufBytes.field(1, Array("k".utf8)))
        let point = [UInt8]((0..<5).flatMap { _ in attribute })
        let metric = OTLPProtobufBytes.field(5, OTLPProtobufBytes.field(1, point))
        let decoder = OTLPDecoder(options: OTLPDecodingOptions(maxAttributesPerItem: 4))
        do {
            _ = try decoder.decodeMetrics(Self.request(metric))
            Issue.record("decoded a point over the limit")
        } catch {
            #expect(error.code == .tooManyAttributes && error.message.contains("number data point"), "\(error)")
        }
        #expect((try? OTLPDecoder(options: OTLPDecodingOptions(maxAttributesPerItem: 5)).decodeMetrics(Self.request(metric))) != nil)
    }

    /// Regression: the message read "a exemplar has more than …".
    @Test("an exemplar over maxAttributesPerItem is too_many_attributes, named with its article, in protobuf and JSON")
    func tooManyAttributesOnAnExemplar() throws {
        let attribute = OTLPProtobufBytes.field(7, OTLPProtobufBytes.field(1, Array("k".utf8)))
        let exemplar = OTLPProtobufBytes.field(5, [UInt8]((0..<5).flatMap { _ in attribute }))
        let metric = OTLPProtobufBytes.field(5, OTLPProtobufBytes.field(1, exemplar))
        let options = OTLPDecodingOptions(maxAttributesPerItem: 4)
        let fromProtobuf = Self.readError { _ = try OTLPDecoder(options: options).decodeMetrics(Self.request(metric)) }
        let attributes = Array(repeating: #"{"key":"k"}"#, count: 5).joined(separator: ",")
        let json =
            Array(
                #"{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"gauge":{"dataPoints":[{"exemplars":[{"filteredAttributes":["#.utf8)
            + Array(attributes.utf8) + Array("]}]}]}}]}]}]}".utf8)
        let fromJSON = Self.readError { _ = try json.withUnsafeBytes { try OTLPJSONDecoder(options: options).decodeMetrics($0) } }
        for error in [fromProtobuf, fromJSON] {
            #expect(error?.code == .tooManyAttributes, "\(String(describing: error))")
            #expect(error?.message.contains("an exemplar has more than 4 attributes") == true, "\(String(describing: error))")
        }
    }

    @Test("an exemplar's trace ID of the wrong length is malformed, with its field named")
    func badExemplarTraceID() {
        let exemplar = OTLPProtobufBytes.field(5, [1, 2, 3])
        let metric = OTLPProtobufBytes.field(5, OTLPProtobufBytes.field(1, OTLPProtobufBytes.field(5, exemplar)))
        do {
            _ = try OTLPDecoder().decodeMetrics(Self.request(metric))
            Issue.record("decoded a 3-byte trace ID")
        } catch {
            #expect(error.code == .malformedProtobuf && error.message.contains("exemplar trace_id is 3 bytes"), "\(error)")
        }
    }

    @Test("a traces request decoded as metrics is wrong_kind, in protobuf and in JSON")
    func tracesAreNotMetrics() throws {
        let traces = OTLPEncoder().encode(
            OTLPTracesData(
                resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"),
                items: [
                    OTLPSpan(
                        traceID: OTLPTraceID(high: 1, low: 2), spanID: OTLPSpanID(3), name: "a", startTimeUnixNano: 1, endTimeUnixNano: 2)
                ]))
        do {
            _ = try OTLPDecoder().decodeMetrics(traces)
            Issue.record("traces decoded as metrics")
        } catch {
            #expect(error.code == .wrongKind && error.message.contains("traces request, not metrics"), "\(error)")
        }
        let json = Array(#"{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"a"}]}]}]}"#.utf8)
        #expect(Self.readError { _ = try json.withUnsafeBytes { try OTLPJSONDecoder().decodeMetrics($0) } }?.code == .wrongKind)
        // And the reverse: a metrics request read as traces is named as metrics.
        let metrics = Array(#"{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"m"}]}]}]}"#.utf8)
        #expect(Self.readError { _ = try metrics.withUnsafeBytes { try OTLPJSONDecoder().decodeTraces($0) } }?.code == .wrongKind)
        #expect(try metrics.withUnsafeBytes { try OTLPJSONDecoder().decodeMetrics($0) }.itemCount == 1)
    }

    @Test("message nesting is limited alike in protobuf and JSON: a point is level 5, its exemplar level 6")
    func nestingLimitAlike() {
        let withExemplar = Self.metricsModel(exemplar: true)
        let plain = Self.metricsModel(exemplar: false)
        for (data, deepest) in [(plain, 5), (withExemplar, 6)] {
            let protobuf = OTLPEncoder().encode(data)
            let json = OTLPJSONEncoder().encode(data)
            for depth in [deepest - 1, deepest] {
                let options = OTLPDecodingOptions(maxNestingDepth: depth)
                let fromProtobuf = Self.readError { _ = try OTLPDecoder(options: options).decodeMetrics(protobuf) }
                let fromJSON = Self.readError { _ = try json.withUnsafeBytes { try OTLPJSONDecoder(options: options).decodeMetrics($0) } }
                let expected: OTLPReadError.Code? = depth < deepest ? .nestingTooDeep : nil
                #expect(
                    fromProtobuf?.code == expected && fromJSON?.code == expected,
                    "depth \(depth): \(String(describing: fromProtobuf)), \(String(describing: fromJSON))")
            }
        }
    }

    static func metricsModel(exemplar: Bool) -> OTLPMetricsData {
        let point = OTLPNumberDataPoint(timeUnixNano: 1, value: .int(2), exemplars: exemplar ? [OTLPExemplar(timeUnixNano: 1)] : [])
        return OTLPMetricsData(
            resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "s"), items: [OTLPMetric(name: "m", data: .gauge([point]))])
    }

    @Test("JSON metric data: snake_case and enum names are read; a null oneof member counts as absent")
    func jsonSpellings() throws {
        let json = Array(
            #"{"resource_metrics":[{"scope_metrics":[{"metrics":[{"name":"m","gauge":null,"sum":{"aggregation_temporality":"AGGREGATION_TEMPORALITY_DELTA","is_monotonic":true,"dataPoints":[{"as_int":null,"asDouble":2.5}]}}]}]}]}"#
                .utf8)
        let data = try json.withUnsafeBytes { try OTLPJSONDecoder().decodeMetrics($0) }
        #expect(
            data.resourceGroups[0].scopeGroups[0].items[0].data
                == .sum([OTLPNumberDataPoint(timeUnixNano: 0, value: .double(2.5))], temporality: .delta, isMonotonic: true))
    }

    /// Regression: a metric with both a gauge and a sum, or a point with both asInt and asDouble, kept the last
    /// silently and validated, where the reference decoder refuses it.
    @Test(
        "JSON oneofs with two members are refused, saying where and which",
        arguments: [
            (#"{"name":"m","gauge":{},"sum":{}}"#, "gauge and sum are both set, and a metric's data holds one value"),
            (#"{"name":"m","gauge":{"dataPoints":[{"asInt":"4","as_double":2.5}]}}"#, "asInt and as_double are both set"),
            (#"{"name":"m","exponential_histogram":{},"exponentialHistogram":{}}"#, "exponential_histogram and exponentialHistogram"),
        ])
    func jsonOneofWithTwoMembers(metric: String, expected: String) throws {
        let json = Array(#"{"resourceMetrics":[{"scopeMetrics":[{"metrics":["#.utf8) + Array(metric.utf8) + Array("]}]}]}".utf8)
        let error = #expect(throws: OTLPReadError.self) { try json.withUnsafeBytes { try OTLPJSONDecoder().decodeMetrics($0) } }
        #expect(error?.code == .malformedJSON)
        #expect(error?.message.contains(expected) == true, "\(String(describing: error))")
        #expect(error?.message.contains("resourceMetrics[0].scopeMetrics[0].metrics[0]") == true, "\(String(describing: error))")
    }
}
