// README.md, "OTLPMetricKit": run by the tests on the MetricKit samples of Tests/Fixtures.
import Foundation
import OTLPMetricKit
import OTLPWire

func convertUploadedPayload(at path: String) throws -> (spans: [OTLPSpan], logRecords: [OTLPLogRecord]) {
    let json = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))  // the payload's JSON bytes
    switch try MetricKitConverter().convertPayload(json: json) {
    case .metric(let metric):  // MXMetricPayload, then its MXSignpostMetric children
        return (metric.spans, [])
    case .diagnostic(let diagnostic):  // MXDiagnosticPayload, and one record per crash, hang, exception…
        return ([diagnostic.span], diagnostic.logRecords)
    }
}
