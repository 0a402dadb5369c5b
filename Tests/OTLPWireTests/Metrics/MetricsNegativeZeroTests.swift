import Foundation
import OTLPTestSupport
import OTLPWire
import Testing

/// -0.0 in the double fields without presence (a summary's sum, a quantile and its value, an exponential
/// histogram's zero threshold): the reference writes it, its bits not being the default's; protobuf-c would
/// leave it out as 0.
@Suite("Metrics: -0.0 on the wire")
struct MetricsNegativeZeroTests {
    /// The reference's bytes for the same requests, and whether it reads ours as equal to its own.
    static let reference = """
        import sys
        from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
        def request(summary_sum):
            r = ExportMetricsServiceRequest()
            resource_metrics = r.resource_metrics.add()
            resource_metrics.resource.SetInParent()
            scope_metrics = resource_metrics.scope_metrics.add()
            scope_metrics.scope.SetInParent()
            metrics = scope_metrics.metrics
            s = metrics.add(name="s").summary.data_points.add(time_unix_nano=1, count=2, sum=summary_sum)
            s.quantile_values.add(quantile=-0.0, value=2.0)
            s.quantile_values.add(quantile=0.5, value=-0.0)
            s.quantile_values.add(quantile=-0.0, value=-0.0)
            metrics.add(name="e").exponential_histogram.data_points.add(time_unix_nano=1, zero_threshold=-0.0)
            return r
        ours = [bytes.fromhex(line) for line in sys.stdin.read().split()]
        print(request(1.5).SerializeToString().hex())
        parsed = ExportMetricsServiceRequest.FromString(ours[1])
        same = parsed == request(-0.0)
        sign = str(parsed.resource_metrics[0].scope_metrics[0].metrics[0].summary.data_points[0].sum)
        print("equal" if same and sign == "-0.0" else "different " + sign)
        """

    static func request(summarySum: Double) -> OTLPMetricsData {
        let summary = OTLPSummaryDataPoint(
            timeUnixNano: 1, count: 2, sum: summarySum,
            quantileValues: [.init(quantile: -0.0, value: 2), .init(quantile: 0.5, value: -0.0), .init(quantile: -0.0, value: -0.0)])
        return OTLPMetricsData(
            resource: OTLPResource(), scope: OTLPInstrumentationScope(name: ""),
            items: [
                OTLPMetric(name: "s", data: .summary([summary])),
                OTLPMetric(
                    name: "e", data: .exponentialHistogram([.init(timeUnixNano: 1, zeroThreshold: -0.0)], temporality: .unspecified)),
            ])
    }

    /// Regression (hostile review): -0.0 was left out of these fields, read back as 0.
    @Test("-0.0 is written: the reference's exact bytes where it keeps field order, and read as -0.0 by it and by us")
    func negativeZeroIsWritten() throws {
        let encoder = OTLPEncoder()
        let canonical = encoder.encode(Self.request(summarySum: 1.5))
        let negativeSum = encoder.encode(Self.request(summarySum: -0.0))
        let hex = [canonical, negativeSum].map { $0.map { String(format: "%02x", $0) }.joined() }.joined(separator: "\n")
        let result = try OTLPProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", Self.reference], stdin: Data(hex.utf8))
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first == canonical.map { String(format: "%02x", $0) }.joined(), "\(lines)")
        #expect(lines.last == "equal", "\(lines)")
        // Our decoder reads the signs back.
        let decoded = try OTLPDecoder().decodeMetrics(negativeSum)
        guard case .summary(let points)? = decoded.resourceGroups[0].scopeGroups[0].items[0].data,
            case .exponentialHistogram(let histogram, _)? = decoded.resourceGroups[0].scopeGroups[0].items[1].data
        else { throw CocoaError(.fileReadCorruptFile) }
        #expect(points[0].sum.sign == .minus && points[0].sum == 0)
        #expect(points[0].quantileValues.map(\.quantile.sign) == [.minus, .plus, .minus])
        #expect(points[0].quantileValues.map(\.value.sign) == [.plus, .minus, .minus])
        #expect(histogram[0].zeroThreshold.sign == .minus)
    }
}
