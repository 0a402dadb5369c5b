extension OTLPJSONDecoder {
    /// A `Metric` (message level 3): at most one of its data oneof's members may be present.
    func metric(_ object: JSONObject) throws(OTLPReadError) -> OTLPMetric {
        try checkLevel(3, object.path)
        var data: OTLPMetricData?
        var member: String?
        for (key, value) in object.members where Self.metricDataMembers.contains(key) {
            guard try object.claimOneofMember(key, value, &member, oneof: "a metric's data") else { continue }
            let path = object.path + "." + key
            switch key {
            case "gauge":
                let gauge = try JSONObject(value, path: path, budget: object.budget)
                try checkLevel(4, path)
                data = .gauge(try gauge.array("dataPoints", "data_points", numberPoint))
            case "sum":
                let sum = try JSONObject(value, path: path, budget: object.budget)
                try checkLevel(4, path)
                data = .sum(
                    try sum.array("dataPoints", "data_points", numberPoint), temporality: try temporality(sum),
                    isMonotonic: try sum.bool("isMonotonic", "is_monotonic"))
            case "histogram":
                let histogram = try JSONObject(value, path: path, budget: object.budget)
                try checkLevel(4, path)
                data = .histogram(try histogram.array("dataPoints", "data_points", histogramPoint), temporality: try temporality(histogram))
            case "exponentialHistogram", "exponential_histogram":
                let histogram = try JSONObject(value, path: path, budget: object.budget)
                try checkLevel(4, path)
                data = .exponentialHistogram(
                    try histogram.array("dataPoints", "data_points", exponentialHistogramPoint), temporality: try temporality(histogram))
            case "summary":
                let summary = try JSONObject(value, path: path, budget: object.budget)
                try checkLevel(4, path)
                data = .summary(try summary.array("dataPoints", "data_points", summaryPoint))
            default:
                continue
            }
        }
        return OTLPMetric(
            name: try object.string("name", "name"), description: try object.string("description", "description"),
            unit: try object.string("unit", "unit"), metadata: try attributes(object, "metadata", level: 4, item: "metric"), data: data)
    }

    /// The members of `Metric`'s `data` oneof, in both spellings.
    private static let metricDataMembers: Set<String> = [
        "gauge", "sum", "histogram", "exponentialHistogram", "exponential_histogram", "summary",
    ]

    private func temporality(_ object: JSONObject) throws(OTLPReadError) -> OTLPAggregationTemporality {
        OTLPAggregationTemporality(
            rawValue: try object.enumValue("aggregationTemporality", "aggregation_temporality", names: Self.temporalityNames))
    }

    static let temporalityNames: [String: Int32] = [
        "AGGREGATION_TEMPORALITY_UNSPECIFIED": 0, "AGGREGATION_TEMPORALITY_DELTA": 1, "AGGREGATION_TEMPORALITY_CUMULATIVE": 2,
    ]

    /// `asDouble` or `asInt` (at most one of them); `nil` when neither is.
    private func numberValue(_ object: JSONObject) throws(OTLPReadError) -> OTLPNumberValue? {
        var value: OTLPNumberValue?
        var claimed: String?
        for (key, member) in object.members where Self.numberValueMembers.contains(key) {
            guard try object.claimOneofMember(key, member, &claimed, oneof: "a number's value") else { continue }
            let path = object.path + "." + key
            switch key {
            case "asDouble", "as_double": value = .double(try JSONObject.double(member, path))
            case "asInt", "as_int": value = .int(try JSONObject.int64(member, path))
            default: continue
            }
        }
        return value
    }

    /// The members of the `value` oneof of number data points and exemplars, in both spellings.
    private static let numberValueMembers: Set<String> = ["asDouble", "as_double", "asInt", "as_int"]

    /// A data point (message level 5; its metric's data is level 4, checked with it). Message levels are checked
    /// as the protobuf pre-scan checks them, so that a request nests too deep in both encodings or in neither.
    private func numberPoint(_ object: JSONObject) throws(OTLPReadError) -> OTLPNumberDataPoint {
        try checkLevel(5, object.path)
        return OTLPNumberDataPoint(
            timeUnixNano: try object.uint64("timeUnixNano", "time_unix_nano"), value: try numberValue(object),
            attributes: try attributes(object, "attributes", level: 6, item: "number data point"),
            startTimeUnixNano: try object.uint64("startTimeUnixNano", "start_time_unix_nano"),
            exemplars: try object.array("exemplars", "exemplars", exemplar), flags: try object.uint32("flags", "flags"))
    }

    private func histogramPoint(_ object: JSONObject) throws(OTLPReadError) -> OTLPHistogramDataPoint {
        try checkLevel(5, object.path)
        return OTLPHistogramDataPoint(
            timeUnixNano: try object.uint64("timeUnixNano", "time_unix_nano"), count: try object.uint64("count", "count"),
            sum: try object.optionalDouble("sum", "sum"), bucketCounts: try object.uint64Array("bucketCounts", "bucket_counts"),
            explicitBounds: try object.doubleArray("explicitBounds", "explicit_bounds"),
            attributes: try attributes(object, "attributes", level: 6, item: "histogram data point"),
            startTimeUnixNano: try object.uint64("startTimeUnixNano", "start_time_unix_nano"),
            exemplars: try object.array("exemplars", "exemplars", exemplar), flags: try object.uint32("flags", "flags"),
            min: try object.optionalDouble("min", "min"), max: try object.optionalDouble("max", "max"))
    }

    private func exponentialHistogramPoint(_ object: JSONObject) throws(OTLPReadError) -> OTLPExponentialHistogramDataPoint {
        try checkLevel(5, object.path)
        return OTLPExponentialHistogramDataPoint(
            timeUnixNano: try object.uint64("timeUnixNano", "time_unix_nano"), count: try object.uint64("count", "count"),
            sum: try object.optionalDouble("sum", "sum"), scale: try object.int32("scale", "scale"),
            zeroCount: try object.uint64("zeroCount", "zero_count"),
            positive: try object.optionalObject("positive").map(buckets), negative: try object.optionalObject("negative").map(buckets),
            attributes: try attributes(object, "attributes", level: 6, item: "exponential histogram data point"),
            startTimeUnixNano: try object.uint64("startTimeUnixNano", "start_time_unix_nano"),
            exemplars: try object.array("exemplars", "exemplars", exemplar), flags: try object.uint32("flags", "flags"),
            min: try object.optionalDouble("min", "min"), max: try object.optionalDouble("max", "max"),
            zeroThreshold: try object.optionalDouble("zeroThreshold", "zero_threshold") ?? 0)
    }

    private func buckets(_ object: JSONObject) throws(OTLPReadError) -> OTLPExponentialHistogramDataPoint.Buckets {
        try checkLevel(6, object.path)
        return OTLPExponentialHistogramDataPoint.Buckets(
            offset: try object.int32("offset", "offset"), bucketCounts: try object.uint64Array("bucketCounts", "bucket_counts"))
    }

    private func summaryPoint(_ object: JSONObject) throws(OTLPReadError) -> OTLPSummaryDataPoint {
        try checkLevel(5, object.path)
        return OTLPSummaryDataPoint(
            timeUnixNano: try object.uint64("timeUnixNano", "time_unix_nano"), count: try object.uint64("count", "count"),
            sum: try object.optionalDouble("sum", "sum") ?? 0,
            quantileValues: try object.array("quantileValues", "quantile_values") { (quantile) throws(OTLPReadError) in
                try checkLevel(6, quantile.path)
                return OTLPSummaryDataPoint.ValueAtQuantile(
                    quantile: try quantile.optionalDouble("quantile", "quantile") ?? 0,
                    value: try quantile.optionalDouble("value", "value") ?? 0)
            },
            attributes: try attributes(object, "attributes", level: 6, item: "summary data point"),
            startTimeUnixNano: try object.uint64("startTimeUnixNano", "start_time_unix_nano"), flags: try object.uint32("flags", "flags"))
    }

    /// An exemplar (message level 6).
    private func exemplar(_ object: JSONObject) throws(OTLPReadError) -> OTLPExemplar {
        try checkLevel(6, object.path)
        return OTLPExemplar(
            timeUnixNano: try object.uint64("timeUnixNano", "time_unix_nano"), value: try numberValue(object),
            filteredAttributes: try attributes(object, "filteredAttributes", level: 7, item: "exemplar"),
            traceID: try object.traceID("traceId", "trace_id"), spanID: try object.spanID("spanId", "span_id"))
    }
}

extension JSONObject {
    func bool(_ camel: String, _ snake: String) throws(OTLPReadError) -> Bool {
        guard let (path, value) = member(camel, snake) else { return false }
        guard case .bool(let bool) = value else { throw JSONObject.typeError(path, "a boolean") }
        return bool
    }

    func int32(_ camel: String, _ snake: String) throws(OTLPReadError) -> Int32 {
        guard let (path, value) = member(camel, snake) else { return 0 }
        return try JSONObject.integer(value, path, "a signed 32-bit integer")
    }

    func optionalDouble(_ camel: String, _ snake: String) throws(OTLPReadError) -> Double? {
        guard let (path, value) = member(camel, snake) else { return nil }
        return try JSONObject.double(value, path)
    }

    func uint64Array(_ camel: String, _ snake: String) throws(OTLPReadError) -> [UInt64] {
        try scalarArray(camel, snake) { (value, path) throws(OTLPReadError) in
            try JSONObject.integer(value, path, "an unsigned 64-bit integer")
        }
    }

    func doubleArray(_ camel: String, _ snake: String) throws(OTLPReadError) -> [Double] {
        try scalarArray(camel, snake) { (value, path) throws(OTLPReadError) in try JSONObject.double(value, path) }
    }

    private func scalarArray<T>(
        _ camel: String, _ snake: String, _ read: (JSONValue, String) throws(OTLPReadError) -> T
    ) throws(OTLPReadError) -> [T] {
        guard let (path, value) = member(camel, snake) else { return [] }
        guard case .array(let elements) = value else { throw JSONObject.typeError(path, "an array") }
        if !elements.isEmpty { try budget.charge(32 + elements.count * MemoryLayout<T>.stride, path) }
        var out: [T] = []
        out.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() { out.append(try read(element, "\(path)[\(index)]")) }
        return out
    }
}
