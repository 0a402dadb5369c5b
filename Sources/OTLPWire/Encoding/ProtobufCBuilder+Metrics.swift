internal import COTLPProto
internal import COTLPShims
internal import CProtobufC

extension ProtobufCBuilder {
    /// Fills `pointer` with `metric`.
    mutating func metric(_ metric: borrowing OTLPMetric, into pointer: UnsafeMutablePointer<PBMetric>) {
        COTLPShims_init_metric(pointer)
        pointer.pointee.name = bytes(metric.name)
        pointer.pointee.description = bytes(metric.description)
        pointer.pointee.unit = bytes(metric.unit)
        (pointer.pointee.n_metadata, pointer.pointee.metadata) = keyValues(metric.metadata)
        guard let data = metric.data else { return }
        switch data {
        case .gauge(let points):
            let gauge = message(PBGauge.self)
            COTLPShims_init_gauge(gauge)
            (gauge.pointee.n_data_points, gauge.pointee.data_points) = messages(points, PBNumberDataPoint.self) {
                $0.numberPoint($1, into: $2)
            }
            pointer.pointee.data_case = OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_GAUGE
            pointer.pointee.gauge = gauge
        case .sum(let points, let temporality, let isMonotonic):
            let sum = message(PBSum.self)
            COTLPShims_init_sum(sum)
            scalars(2)
            (sum.pointee.n_data_points, sum.pointee.data_points) = messages(points, PBNumberDataPoint.self) { $0.numberPoint($1, into: $2) }
            sum.pointee.aggregation_temporality = .init(rawValue: UInt32(bitPattern: temporality.rawValue))
            sum.pointee.is_monotonic = isMonotonic ? 1 : 0
            pointer.pointee.data_case = OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_SUM
            pointer.pointee.sum = sum
        case .histogram(let points, let temporality):
            let histogram = message(PBHistogram.self)
            COTLPShims_init_histogram(histogram)
            scalars(1)
            (histogram.pointee.n_data_points, histogram.pointee.data_points) = messages(points, PBHistogramDataPoint.self) {
                $0.histogramPoint($1, into: $2)
            }
            histogram.pointee.aggregation_temporality = .init(rawValue: UInt32(bitPattern: temporality.rawValue))
            pointer.pointee.data_case = OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_HISTOGRAM
            pointer.pointee.histogram = histogram
        case .exponentialHistogram(let points, let temporality):
            let histogram = message(PBExponentialHistogram.self)
            COTLPShims_init_exponential_histogram(histogram)
            scalars(1)
            (histogram.pointee.n_data_points, histogram.pointee.data_points) = messages(points, PBExponentialHistogramDataPoint.self) {
                $0.exponentialHistogramPoint($1, into: $2)
            }
            histogram.pointee.aggregation_temporality = .init(rawValue: UInt32(bitPattern: temporality.rawValue))
            pointer.pointee.data_case = OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_EXPONENTIAL_HISTOGRAM
            pointer.pointee.exponential_histogram = histogram
        case .summary(let points):
            let summary = message(PBSummary.self)
            COTLPShims_init_summary(summary)
            (summary.pointee.n_data_points, summary.pointee.data_points) = messages(points, PBSummaryDataPoint.self) {
                $0.summaryPoint($1, into: $2)
            }
            pointer.pointee.data_case = OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_SUMMARY
            pointer.pointee.summary = summary
        }
    }

    /// An array of `elements` built as `T` messages, and the pointer array a repeated field holds.
    private mutating func messages<Element, T>(
        _ elements: [Element], _ type: T.Type, _ build: (inout ProtobufCBuilder, Element, UnsafeMutablePointer<T>) -> Void
    ) -> (Int, UnsafeMutablePointer<UnsafeMutablePointer<T>?>?) {
        let count = elements.count
        guard count > 0 else { return (0, nil) }
        let structs = message(T.self, count: count)
        let pointers = allocate(UnsafeMutablePointer<T>?.self, count: count)
        for index in 0..<count {
            build(&self, elements[index], structs + index)
            pointers[index] = structs + index
        }
        return (count, pointers)
    }

    /// A repeated scalar field's values copied into the arena (packed on the wire: at most 10 bytes each).
    private mutating func scalarArray<T>(_ values: [T]) -> (Int, UnsafeMutablePointer<T>?) {
        guard !values.isEmpty else { return (0, nil) }
        scalars(values.count &+ 1)  // at most 10 bytes each, plus the tag and length
        let array = allocate(T.self, count: values.count)
        for (index, value) in values.enumerated() { array[index] = value }
        return (values.count, array)
    }

    private mutating func numberPoint(_ point: OTLPNumberDataPoint, into pointer: UnsafeMutablePointer<PBNumberDataPoint>) {
        COTLPShims_init_number_data_point(pointer)
        scalars(4)
        (pointer.pointee.n_attributes, pointer.pointee.attributes) = keyValues(point.attributes)
        pointer.pointee.start_time_unix_nano = point.startTimeUnixNano
        pointer.pointee.time_unix_nano = point.timeUnixNano
        (pointer.pointee.n_exemplars, pointer.pointee.exemplars) = messages(point.exemplars, PBExemplar.self) { $0.exemplar($1, into: $2) }
        pointer.pointee.flags = point.flags
        switch point.value {
        case .double(let value)?:
            pointer.pointee.value_case = OPENTELEMETRY__PROTO__METRICS__V1__NUMBER_DATA_POINT__VALUE_AS_DOUBLE
            pointer.pointee.as_double = value
        case .int(let value)?:
            pointer.pointee.value_case = OPENTELEMETRY__PROTO__METRICS__V1__NUMBER_DATA_POINT__VALUE_AS_INT
            pointer.pointee.as_int = value
        case nil:
            break
        }
    }

    private mutating func histogramPoint(_ point: OTLPHistogramDataPoint, into pointer: UnsafeMutablePointer<PBHistogramDataPoint>) {
        COTLPShims_init_histogram_data_point(pointer)
        scalars(7)
        (pointer.pointee.n_attributes, pointer.pointee.attributes) = keyValues(point.attributes)
        pointer.pointee.start_time_unix_nano = point.startTimeUnixNano
        pointer.pointee.time_unix_nano = point.timeUnixNano
        pointer.pointee.count = point.count
        if let sum = point.sum {
            pointer.pointee._sum_case = OPENTELEMETRY__PROTO__METRICS__V1__HISTOGRAM_DATA_POINT___SUM_SUM
            pointer.pointee.sum = sum
        }
        (pointer.pointee.n_bucket_counts, pointer.pointee.bucket_counts) = scalarArray(point.bucketCounts)
        (pointer.pointee.n_explicit_bounds, pointer.pointee.explicit_bounds) = scalarArray(point.explicitBounds)
        (pointer.pointee.n_exemplars, pointer.pointee.exemplars) = messages(point.exemplars, PBExemplar.self) { $0.exemplar($1, into: $2) }
        pointer.pointee.flags = point.flags
        if let min = point.min {
            pointer.pointee._min_case = OPENTELEMETRY__PROTO__METRICS__V1__HISTOGRAM_DATA_POINT___MIN_MIN
            pointer.pointee.min = min
        }
        if let max = point.max {
            pointer.pointee._max_case = OPENTELEMETRY__PROTO__METRICS__V1__HISTOGRAM_DATA_POINT___MAX_MAX
            pointer.pointee.max = max
        }
    }

    private mutating func exponentialHistogramPoint(
        _ point: OTLPExponentialHistogramDataPoint, into pointer: UnsafeMutablePointer<PBExponentialHistogramDataPoint>
    ) {
        COTLPShims_init_exponential_histogram_data_point(pointer)
        scalars(11)
        (pointer.pointee.n_attributes, pointer.pointee.attributes) = keyValues(point.attributes)
        pointer.pointee.start_time_unix_nano = point.startTimeUnixNano
        pointer.pointee.time_unix_nano = point.timeUnixNano
        pointer.pointee.count = point.count
        if let sum = point.sum {
            pointer.pointee._sum_case = OPENTELEMETRY__PROTO__METRICS__V1__EXPONENTIAL_HISTOGRAM_DATA_POINT___SUM_SUM
            pointer.pointee.sum = sum
        }
        pointer.pointee.scale = point.scale
        pointer.pointee.zero_count = point.zeroCount
        if let positive = point.positive { pointer.pointee.positive = buckets(positive) }
        if let negative = point.negative { pointer.pointee.negative = buckets(negative) }
        pointer.pointee.flags = point.flags
        (pointer.pointee.n_exemplars, pointer.pointee.exemplars) = messages(point.exemplars, PBExemplar.self) { $0.exemplar($1, into: $2) }
        if let min = point.min {
            pointer.pointee._min_case = OPENTELEMETRY__PROTO__METRICS__V1__EXPONENTIAL_HISTOGRAM_DATA_POINT___MIN_MIN
            pointer.pointee.min = min
        }
        if let max = point.max {
            pointer.pointee._max_case = OPENTELEMETRY__PROTO__METRICS__V1__EXPONENTIAL_HISTOGRAM_DATA_POINT___MAX_MAX
            pointer.pointee.max = max
        }
        if point.zeroThreshold.isNegativeZero {
            negativeZeros([14], of: pointer)  // the last field: where the reference writes it too
        } else {
            pointer.pointee.zero_threshold = point.zeroThreshold
        }
    }

    /// Writes -0.0 to the fields `numbers` of `message`, in that order after its other fields, as unknown fields
    /// (whose bytes protobuf-c copies as they are). protobuf-c leaves out a double field without presence when
    /// it equals 0, which -0.0 does, where the reference writes it: its bits are not the default's (regression:
    /// a summary's -0.0 sum or quantile read back as 0). The struct's fields must hold 0.
    private mutating func negativeZeros<Message>(
        _ numbers: [UInt32], then value: (number: UInt32, value: Double)? = nil, of message: UnsafeMutablePointer<Message>
    ) {
        let fields = numbers.map { ($0, -0.0) } + (value.map { [($0.number, $0.value)] } ?? [])
        scalars(fields.count)
        let unknown = allocate(ProtobufCMessageUnknownField.self, count: fields.count)
        for (index, (number, double)) in fields.enumerated() {
            let data = allocate(UInt64.self)
            data.pointee = double.bitPattern.littleEndian
            unknown[index] = ProtobufCMessageUnknownField(
                tag: number, wire_type: PROTOBUF_C_WIRE_TYPE_64BIT, len: 8,
                data: UnsafeMutableRawPointer(data).assumingMemoryBound(to: UInt8.self))
        }
        // `base`, the message's first member.
        let base = UnsafeMutableRawPointer(message).assumingMemoryBound(to: ProtobufCMessage.self)
        base.pointee.n_unknown_fields = UInt32(fields.count)
        base.pointee.unknown_fields = unknown
    }

    private mutating func buckets(_ buckets: OTLPExponentialHistogramDataPoint.Buckets) -> UnsafeMutablePointer<PBBuckets> {
        let pointer = message(PBBuckets.self)
        COTLPShims_init_buckets(pointer)
        scalars(1)
        pointer.pointee.offset = buckets.offset
        (pointer.pointee.n_bucket_counts, pointer.pointee.bucket_counts) = scalarArray(buckets.bucketCounts)
        return pointer
    }

    private mutating func summaryPoint(_ point: OTLPSummaryDataPoint, into pointer: UnsafeMutablePointer<PBSummaryDataPoint>) {
        COTLPShims_init_summary_data_point(pointer)
        scalars(5)
        (pointer.pointee.n_attributes, pointer.pointee.attributes) = keyValues(point.attributes)
        pointer.pointee.start_time_unix_nano = point.startTimeUnixNano
        pointer.pointee.time_unix_nano = point.timeUnixNano
        pointer.pointee.count = point.count
        if point.sum.isNegativeZero {
            // After the fields that follow it: the one -0.0 written out of the reference's field order.
            negativeZeros([5], of: pointer)
        } else {
            pointer.pointee.sum = point.sum
        }
        (pointer.pointee.n_quantile_values, pointer.pointee.quantile_values) = messages(point.quantileValues, PBValueAtQuantile.self) {
            builder, quantile, pointer in
            COTLPShims_init_value_at_quantile(pointer)
            builder.scalars(2)
            if quantile.quantile.isNegativeZero {
                // Both fields as unknown ones, so that they keep their order.
                builder.negativeZeros([1], then: quantile.value.bitPattern == 0 ? nil : (2, quantile.value), of: pointer)
            } else if quantile.value.isNegativeZero {
                pointer.pointee.quantile = quantile.quantile
                builder.negativeZeros([2], of: pointer)
            } else {
                pointer.pointee.quantile = quantile.quantile
                pointer.pointee.value = quantile.value
            }
        }
        pointer.pointee.flags = point.flags
    }

    private mutating func exemplar(_ exemplar: OTLPExemplar, into pointer: UnsafeMutablePointer<PBExemplar>) {
        COTLPShims_init_exemplar(pointer)
        scalars(2)
        (pointer.pointee.n_filtered_attributes, pointer.pointee.filtered_attributes) = keyValues(exemplar.filteredAttributes)
        pointer.pointee.time_unix_nano = exemplar.timeUnixNano
        pointer.pointee.span_id = bytes(exemplar.spanID)
        pointer.pointee.trace_id = bytes(exemplar.traceID)
        switch exemplar.value {
        case .double(let value)?:
            pointer.pointee.value_case = OPENTELEMETRY__PROTO__METRICS__V1__EXEMPLAR__VALUE_AS_DOUBLE
            pointer.pointee.as_double = value
        case .int(let value)?:
            pointer.pointee.value_case = OPENTELEMETRY__PROTO__METRICS__V1__EXEMPLAR__VALUE_AS_INT
            pointer.pointee.as_int = value
        case nil:
            break
        }
    }
}

extension Double {
    /// -0.0: zero with its sign bit set.
    fileprivate var isNegativeZero: Bool { self == 0 && sign == .minus }
}
