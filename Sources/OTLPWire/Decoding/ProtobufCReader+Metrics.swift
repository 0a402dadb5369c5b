internal import COTLPProto
internal import COTLPShims
internal import CProtobufC

extension ProtobufCReader {
    static func metric(_ metric: PBMetric) throws(OTLPReadError) -> OTLPMetric {
        OTLPMetric(
            name: string(metric.name), description: string(metric.description), unit: string(metric.unit),
            metadata: attributes(metric.n_metadata, metric.metadata), data: try metricData(metric))
    }

    private static func metricData(_ metric: PBMetric) throws(OTLPReadError) -> OTLPMetricData? {
        switch metric.data_case {
        case OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_GAUGE:
            guard let gauge = metric.gauge?.pointee else { return nil }
            return .gauge(try array(gauge.n_data_points, gauge.data_points, numberPoint))
        case OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_SUM:
            guard let sum = metric.sum?.pointee else { return nil }
            return .sum(
                try array(sum.n_data_points, sum.data_points, numberPoint),
                temporality: temporality(sum.aggregation_temporality.rawValue), isMonotonic: sum.is_monotonic != 0)
        case OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_HISTOGRAM:
            guard let histogram = metric.histogram?.pointee else { return nil }
            return .histogram(
                try array(histogram.n_data_points, histogram.data_points, histogramPoint),
                temporality: temporality(histogram.aggregation_temporality.rawValue))
        case OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_EXPONENTIAL_HISTOGRAM:
            guard let histogram = metric.exponential_histogram?.pointee else { return nil }
            return .exponentialHistogram(
                try array(histogram.n_data_points, histogram.data_points, exponentialHistogramPoint),
                temporality: temporality(histogram.aggregation_temporality.rawValue))
        case OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_SUMMARY:
            guard let summary = metric.summary?.pointee else { return nil }
            return .summary(try array(summary.n_data_points, summary.data_points, summaryPoint))
        default:
            return nil
        }
    }

    private static func temporality(_ raw: UInt32) -> OTLPAggregationTemporality {
        OTLPAggregationTemporality(rawValue: Int32(bitPattern: raw))
    }

    private static func numberPoint(_ point: PBNumberDataPoint) throws(OTLPReadError) -> OTLPNumberDataPoint {
        let value: OTLPNumberValue? =
            switch point.value_case {
            case OPENTELEMETRY__PROTO__METRICS__V1__NUMBER_DATA_POINT__VALUE_AS_DOUBLE: .double(point.as_double)
            case OPENTELEMETRY__PROTO__METRICS__V1__NUMBER_DATA_POINT__VALUE_AS_INT: .int(point.as_int)
            default: nil
            }
        return OTLPNumberDataPoint(
            timeUnixNano: point.time_unix_nano, value: value, attributes: attributes(point.n_attributes, point.attributes),
            startTimeUnixNano: point.start_time_unix_nano, exemplars: try array(point.n_exemplars, point.exemplars, exemplar),
            flags: point.flags)
    }

    private static func histogramPoint(_ point: PBHistogramDataPoint) throws(OTLPReadError) -> OTLPHistogramDataPoint {
        OTLPHistogramDataPoint(
            timeUnixNano: point.time_unix_nano, count: point.count,
            sum: point._sum_case == OPENTELEMETRY__PROTO__METRICS__V1__HISTOGRAM_DATA_POINT___SUM_SUM ? point.sum : nil,
            bucketCounts: scalars(point.n_bucket_counts, point.bucket_counts),
            explicitBounds: scalars(point.n_explicit_bounds, point.explicit_bounds),
            attributes: attributes(point.n_attributes, point.attributes), startTimeUnixNano: point.start_time_unix_nano,
            exemplars: try array(point.n_exemplars, point.exemplars, exemplar), flags: point.flags,
            min: point._min_case == OPENTELEMETRY__PROTO__METRICS__V1__HISTOGRAM_DATA_POINT___MIN_MIN ? point.min : nil,
            max: point._max_case == OPENTELEMETRY__PROTO__METRICS__V1__HISTOGRAM_DATA_POINT___MAX_MAX ? point.max : nil)
    }

    private static func exponentialHistogramPoint(
        _ point: PBExponentialHistogramDataPoint
    ) throws(OTLPReadError) -> OTLPExponentialHistogramDataPoint {
        OTLPExponentialHistogramDataPoint(
            timeUnixNano: point.time_unix_nano, count: point.count,
            sum: point._sum_case == OPENTELEMETRY__PROTO__METRICS__V1__EXPONENTIAL_HISTOGRAM_DATA_POINT___SUM_SUM ? point.sum : nil,
            scale: point.scale, zeroCount: point.zero_count,
            positive: point.positive.map { buckets($0.pointee) }, negative: point.negative.map { buckets($0.pointee) },
            attributes: attributes(point.n_attributes, point.attributes), startTimeUnixNano: point.start_time_unix_nano,
            exemplars: try array(point.n_exemplars, point.exemplars, exemplar), flags: point.flags,
            min: point._min_case == OPENTELEMETRY__PROTO__METRICS__V1__EXPONENTIAL_HISTOGRAM_DATA_POINT___MIN_MIN ? point.min : nil,
            max: point._max_case == OPENTELEMETRY__PROTO__METRICS__V1__EXPONENTIAL_HISTOGRAM_DATA_POINT___MAX_MAX ? point.max : nil,
            zeroThreshold: point.zero_threshold)
    }

    private static func buckets(_ buckets: PBBuckets) -> OTLPExponentialHistogramDataPoint.Buckets {
        OTLPExponentialHistogramDataPoint.Buckets(
            offset: buckets.offset, bucketCounts: scalars(buckets.n_bucket_counts, buckets.bucket_counts))
    }

    private static func summaryPoint(_ point: PBSummaryDataPoint) throws(OTLPReadError) -> OTLPSummaryDataPoint {
        OTLPSummaryDataPoint(
            timeUnixNano: point.time_unix_nano, count: point.count, sum: point.sum,
            quantileValues: try array(point.n_quantile_values, point.quantile_values) { quantile in
                OTLPSummaryDataPoint.ValueAtQuantile(quantile: quantile.quantile, value: quantile.value)
            },
            attributes: attributes(point.n_attributes, point.attributes), startTimeUnixNano: point.start_time_unix_nano,
            flags: point.flags)
    }

    private static func exemplar(_ exemplar: PBExemplar) throws(OTLPReadError) -> OTLPExemplar {
        let value: OTLPNumberValue? =
            switch exemplar.value_case {
            case OPENTELEMETRY__PROTO__METRICS__V1__EXEMPLAR__VALUE_AS_DOUBLE: .double(exemplar.as_double)
            case OPENTELEMETRY__PROTO__METRICS__V1__EXEMPLAR__VALUE_AS_INT: .int(exemplar.as_int)
            default: nil
            }
        return OTLPExemplar(
            timeUnixNano: exemplar.time_unix_nano, value: value,
            filteredAttributes: attributes(exemplar.n_filtered_attributes, exemplar.filtered_attributes),
            traceID: try traceID(exemplar.trace_id, "exemplar"), spanID: try spanID(exemplar.span_id, "exemplar span_id"))
    }

    /// A repeated scalar field (bucket counts, bounds) as an array.
    private static func scalars<T>(_ count: Int, _ values: UnsafeMutablePointer<T>?) -> [T] {
        guard count > 0, let values else { return [] }
        return Array(UnsafeBufferPointer(start: values, count: count))
    }
}
