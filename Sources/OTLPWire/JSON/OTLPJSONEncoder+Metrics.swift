extension OTLPJSONEncoder {
    /// A `Metric`, fields in field-number order.
    func write(_ metric: OTLPMetric, _ out: inout JSONOutput) {
        out.beginObject()
        stringField("name", metric.name, &out)
        stringField("description", metric.description, &out)
        stringField("unit", metric.unit, &out)
        switch metric.data {
        case .gauge(let points)?:
            out.key("gauge")
            out.beginObject()
            pointArray(points, &out) { write($0, &$1) }
            out.endObject()
        case .sum(let points, let temporality, let isMonotonic)?:
            out.key("sum")
            out.beginObject()
            pointArray(points, &out) { write($0, &$1) }
            intField("aggregationTemporality", temporality.rawValue, &out)
            if isMonotonic { out.key("isMonotonic"); out.raw("true") }
            out.endObject()
        case .histogram(let points, let temporality)?:
            out.key("histogram")
            out.beginObject()
            pointArray(points, &out) { write($0, &$1) }
            intField("aggregationTemporality", temporality.rawValue, &out)
            out.endObject()
        case .exponentialHistogram(let points, let temporality)?:
            out.key("exponentialHistogram")
            out.beginObject()
            pointArray(points, &out) { write($0, &$1) }
            intField("aggregationTemporality", temporality.rawValue, &out)
            out.endObject()
        case .summary(let points)?:
            out.key("summary")
            out.beginObject()
            pointArray(points, &out) { write($0, &$1) }
            out.endObject()
        case nil:
            break
        }
        write(metric.metadata, key: "metadata", &out)
        out.endObject()
    }

    private func pointArray<Point>(_ points: [Point], _ out: inout JSONOutput, _ writePoint: (Point, inout JSONOutput) -> Void) {
        guard !points.isEmpty else { return }
        out.key("dataPoints")
        out.beginArray()
        for point in points { writePoint(point, &out) }
        out.endArray()
    }

    private func write(_ point: OTLPNumberDataPoint, _ out: inout JSONOutput) {
        out.beginObject()
        timeField("startTimeUnixNano", point.startTimeUnixNano, &out)
        timeField("timeUnixNano", point.timeUnixNano, &out)
        if case .double(let value)? = point.value { out.key("asDouble"); out.raw(Self.jsonNumber(value)) }
        exemplars(point.exemplars, &out)
        if case .int(let value)? = point.value { out.key("asInt"); out.quotedRaw(String(value)) }
        write(point.attributes, key: "attributes", &out)
        uintField("flags", point.flags, &out)
        out.endObject()
    }

    private func write(_ point: OTLPHistogramDataPoint, _ out: inout JSONOutput) {
        out.beginObject()
        timeField("startTimeUnixNano", point.startTimeUnixNano, &out)
        timeField("timeUnixNano", point.timeUnixNano, &out)
        timeField("count", point.count, &out)
        optionalDouble("sum", point.sum, &out)
        uint64Array("bucketCounts", point.bucketCounts, &out)
        if !point.explicitBounds.isEmpty {
            out.key("explicitBounds")
            out.beginArray()
            for bound in point.explicitBounds { out.raw(Self.jsonNumber(bound)) }
            out.endArray()
        }
        exemplars(point.exemplars, &out)
        write(point.attributes, key: "attributes", &out)
        uintField("flags", point.flags, &out)
        optionalDouble("min", point.min, &out)
        optionalDouble("max", point.max, &out)
        out.endObject()
    }

    private func write(_ point: OTLPExponentialHistogramDataPoint, _ out: inout JSONOutput) {
        out.beginObject()
        write(point.attributes, key: "attributes", &out)
        timeField("startTimeUnixNano", point.startTimeUnixNano, &out)
        timeField("timeUnixNano", point.timeUnixNano, &out)
        timeField("count", point.count, &out)
        optionalDouble("sum", point.sum, &out)
        intField("scale", point.scale, &out)
        timeField("zeroCount", point.zeroCount, &out)
        for (key, buckets) in [("positive", point.positive), ("negative", point.negative)] {
            guard let buckets else { continue }
            key == "positive" ? out.key("positive") : out.key("negative")
            out.beginObject()
            intField("offset", buckets.offset, &out)
            uint64Array("bucketCounts", buckets.bucketCounts, &out)
            out.endObject()
        }
        uintField("flags", point.flags, &out)
        exemplars(point.exemplars, &out)
        optionalDouble("min", point.min, &out)
        optionalDouble("max", point.max, &out)
        doubleField("zeroThreshold", point.zeroThreshold, &out)
        out.endObject()
    }

    private func write(_ point: OTLPSummaryDataPoint, _ out: inout JSONOutput) {
        out.beginObject()
        timeField("startTimeUnixNano", point.startTimeUnixNano, &out)
        timeField("timeUnixNano", point.timeUnixNano, &out)
        timeField("count", point.count, &out)
        doubleField("sum", point.sum, &out)
        if !point.quantileValues.isEmpty {
            out.key("quantileValues")
            out.beginArray()
            for quantile in point.quantileValues {
                out.beginObject()
                doubleField("quantile", quantile.quantile, &out)
                doubleField("value", quantile.value, &out)
                out.endObject()
            }
            out.endArray()
        }
        write(point.attributes, key: "attributes", &out)
        uintField("flags", point.flags, &out)
        out.endObject()
    }

    private func exemplars(_ exemplars: [OTLPExemplar], _ out: inout JSONOutput) {
        guard !exemplars.isEmpty else { return }
        out.key("exemplars")
        out.beginArray()
        for exemplar in exemplars {
            out.beginObject()
            timeField("timeUnixNano", exemplar.timeUnixNano, &out)
            if case .double(let value)? = exemplar.value { out.key("asDouble"); out.raw(Self.jsonNumber(value)) }
            if let id = exemplar.spanID { out.key("spanId"); out.quotedRaw(id.hex) }
            if let id = exemplar.traceID { out.key("traceId"); out.quotedRaw(id.hex) }
            if case .int(let value)? = exemplar.value { out.key("asInt"); out.quotedRaw(String(value)) }
            write(exemplar.filteredAttributes, key: "filteredAttributes", &out)
            out.endObject()
        }
        out.endArray()
    }

    /// A proto3 double without presence: left out at its default (+0.0; -0.0 is written, as protobuf does).
    private func doubleField(_ key: StaticString, _ value: Double, _ out: inout JSONOutput) {
        guard value.bitPattern != 0 else { return }
        out.key(key)
        out.raw(Self.jsonNumber(value))
    }

    /// An optional double (proto3 `optional`): written whenever present.
    private func optionalDouble(_ key: StaticString, _ value: Double?, _ out: inout JSONOutput) {
        guard let value else { return }
        out.key(key)
        out.raw(Self.jsonNumber(value))
    }

    private func uint64Array(_ key: StaticString, _ values: [UInt64], _ out: inout JSONOutput) {
        guard !values.isEmpty else { return }
        out.key(key)
        out.beginArray()
        for value in values { out.quotedRaw(String(value)) }
        out.endArray()
    }
}
