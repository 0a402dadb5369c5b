import OTLPWire

extension OTLPMetric {
    /// Whether one of the metric's data points has an exemplar recorded in the trace `traceID`.
    func hasExemplar(of traceID: OTLPTraceID?) -> Bool {
        guard let traceID, let data else { return false }
        func any(_ exemplars: [[OTLPExemplar]]) -> Bool { exemplars.contains { $0.contains { $0.traceID == traceID } } }
        switch data {
        case .gauge(let points), .sum(let points, _, _): return any(points.map(\.exemplars))
        case .histogram(let points, _): return any(points.map(\.exemplars))
        case .exponentialHistogram(let points, _): return any(points.map(\.exemplars))
        case .summary: return false  // summary points carry no exemplars
        }
    }
}
