/// The data of a metric: one of OTLP's `Gauge`, `Sum`, `Histogram`, `ExponentialHistogram` and `Summary`,
/// with its data points in order.
public enum OTLPMetricData: Sendable, Equatable {
    /// Sampled values, not aggregated over time (`Gauge`).
    case gauge([OTLPNumberDataPoint])
    /// Values summed over time (`Sum`): how they aggregate, and whether the sum only ever grows.
    case sum([OTLPNumberDataPoint], temporality: OTLPAggregationTemporality, isMonotonic: Bool)
    /// Distributions over explicit bucket bounds (`Histogram`).
    case histogram([OTLPHistogramDataPoint], temporality: OTLPAggregationTemporality)
    /// Distributions over exponentially sized buckets (`ExponentialHistogram`).
    case exponentialHistogram([OTLPExponentialHistogramDataPoint], temporality: OTLPAggregationTemporality)
    /// Quantiles of a distribution, as legacy Prometheus and StatsD sources give them (`Summary`).
    case summary([OTLPSummaryDataPoint])
}

extension OTLPMetricData {
    /// OTLP's name for the kind of data: `gauge`, `sum`, `histogram`, `exponential_histogram` or `summary`.
    package var kindName: String {
        switch self {
        case .gauge: "gauge"
        case .sum: "sum"
        case .histogram: "histogram"
        case .exponentialHistogram: "exponential_histogram"
        case .summary: "summary"
        }
    }

    /// The number of data points.
    package var dataPointCount: Int {
        switch self {
        case .gauge(let points), .sum(let points, _, _): points.count
        case .histogram(let points, _): points.count
        case .exponentialHistogram(let points, _): points.count
        case .summary(let points): points.count
        }
    }

    /// The aggregation temporality of a sum or histogram; `nil` for gauges and summaries.
    package var temporality: OTLPAggregationTemporality? {
        switch self {
        case .gauge, .summary: nil
        case .sum(_, let temporality, _), .histogram(_, let temporality), .exponentialHistogram(_, let temporality): temporality
        }
    }
}
