import OTLPWire

extension TreeRenderer {
    /// One metric: a line with its name, type, unit, temporality and monotonicity, then one line per data
    /// point (time, attributes, value or buckets or quantiles); with details, its description, metadata and
    /// the points' exemplars.
    func metricLines(_ metric: OTLPMetric) -> String {
        let shape = metric.data.map(Self.shape)
        var line = "    metric " + bold(metric.name.isEmpty ? "(unnamed)" : quoteIfNeeded(metric.name))
        line += " · " + (shape?.kind ?? "(no data)")
        if !metric.unit.isEmpty { line += " · unit=\(quoteIfNeeded(metric.unit))" }
        if let temporality = shape?.temporality { line += " · \(temporality)" }
        if case .sum(_, _, let isMonotonic)? = metric.data { line += isMonotonic ? " · monotonic" : " · not monotonic" }
        if let points = shape?.points { line += dim(" · \(points) point\(points == 1 ? "" : "s")") }
        var out = line + "\n"
        if showDetails {
            if !metric.description.isEmpty { out += "      " + dim("description \"\(escaped(metric.description))\"") + "\n" }
            if !metric.metadata.isEmpty { out += "      " + dim("metadata " + attributes(metric.metadata)) + "\n" }
        }
        switch metric.data {
        case .gauge(let points)?, .sum(let points, _, _)?:
            for point in points {
                out += pointLine(point.startTimeUnixNano, point.timeUnixNano, point.attributes, point.flags, "value=" + number(point.value))
                out += exemplarLines(point.exemplars)
            }
        case .histogram(let points, _)?:
            for point in points {
                out += pointLine(point.startTimeUnixNano, point.timeUnixNano, point.attributes, point.flags, histogram(point))
                out += exemplarLines(point.exemplars)
            }
        case .exponentialHistogram(let points, _)?:
            for point in points {
                out += pointLine(point.startTimeUnixNano, point.timeUnixNano, point.attributes, point.flags, exponentialHistogram(point))
                out += exemplarLines(point.exemplars)
            }
        case .summary(let points)?:
            for point in points {
                let quantiles = point.quantileValues.map { "q\(decimal($0.quantile))=\(decimal($0.value))" }.joined(separator: " ")
                out += pointLine(
                    point.startTimeUnixNano, point.timeUnixNano, point.attributes, point.flags,
                    "count=\(point.count) sum=\(decimal(point.sum))" + (quantiles.isEmpty ? "" : " " + quantiles))
            }
        case nil:
            break
        }
        return out
    }

    /// OTLP's name for the kind of data (`gauge`, `sum`, `histogram`, `exponential_histogram`, `summary`), the
    /// temporality of a sum or histogram, and the number of points. (Written here, on the public model, so that
    /// the fuzz target that links these files builds outside the package.)
    private static func shape(_ data: OTLPMetricData) -> (kind: String, temporality: OTLPAggregationTemporality?, points: Int) {
        switch data {
        case .gauge(let points): ("gauge", nil, points.count)
        case .sum(let points, let temporality, _): ("sum", temporality, points.count)
        case .histogram(let points, let temporality): ("histogram", temporality, points.count)
        case .exponentialHistogram(let points, let temporality): ("exponential_histogram", temporality, points.count)
        case .summary(let points): ("summary", nil, points.count)
        }
    }

    /// A data point's line: its time (and start time), its attributes, what it holds, and flags other than 0.
    private func pointLine(_ start: UInt64, _ time: UInt64, _ pointAttributes: [OTLPAttribute], _ flags: UInt32, _ holds: String) -> String
    {
        var line = "      • " + (time == 0 ? "(no time)" : UnixTime.iso8601(time))
        if start != 0 { line += dim(" (from \(UnixTime.iso8601(start)))") }
        if !pointAttributes.isEmpty { line += " " + attributes(pointAttributes) }
        line += " " + holds
        if flags != 0 { line += dim(" flags=\(flags)\(flags & 1 != 0 ? " (no recorded value)" : "")") }
        return line + "\n"
    }

    /// With details, one line per exemplar: time, value, trace context and filtered attributes.
    private func exemplarLines(_ exemplars: [OTLPExemplar]) -> String {
        guard showDetails else { return "" }
        return exemplars.map { exemplar in
            var line = "          exemplar " + (exemplar.timeUnixNano == 0 ? "(no time)" : UnixTime.iso8601(exemplar.timeUnixNano))
            line += " value=" + number(exemplar.value)
            if let traceID = exemplar.traceID { line += " trace=\(traceID.description)" }
            if let spanID = exemplar.spanID { line += " span=\(spanID.description)" }
            if !exemplar.filteredAttributes.isEmpty { line += " " + attributes(exemplar.filteredAttributes) }
            return dim(line) + "\n"
        }.joined()
    }

    /// Count, sum, min, max and each bucket with its bounds: `(-inf,0]=1 (0,5]=3 (5,+inf)=0`.
    private func histogram(_ point: OTLPHistogramDataPoint) -> String {
        var text = "count=\(point.count)" + statistics(point.sum, point.min, point.max)
        let bounds = point.explicitBounds
        guard !point.bucketCounts.isEmpty else {
            // Bounds without counts: shown, so that a point that lost its counts does not look like one without buckets.
            if !bounds.isEmpty { text += " bounds " + bounds.map(decimal).joined(separator: " ") + paint(" (no bucket counts)", "33") }
            return text
        }
        let buckets = point.bucketCounts.enumerated().map { index, count in
            let lower = index == 0 ? "-inf" : (index - 1 < bounds.count ? decimal(bounds[index - 1]) : "?")
            let upper = index < bounds.count ? decimal(bounds[index]) + "]" : (index == bounds.count ? "+inf)" : "?]")
            return "(\(lower),\(upper)=\(count)"
        }
        text += " buckets " + buckets.joined(separator: " ")
        if point.bucketCounts.count != bounds.count + 1 {
            text += paint(" (\(point.bucketCounts.count) buckets for \(bounds.count) bounds)", "33")
        }
        return text
    }

    /// Count, sum, min, max, scale, the zero bucket and each side's offset and counts.
    private func exponentialHistogram(_ point: OTLPExponentialHistogramDataPoint) -> String {
        var text = "count=\(point.count)" + statistics(point.sum, point.min, point.max)
        text += " scale=\(point.scale) zero=\(point.zeroCount)"
        if point.zeroThreshold != 0 { text += " zero_threshold=\(decimal(point.zeroThreshold))" }
        for (side, buckets) in [("positive", point.positive), ("negative", point.negative)] {
            guard let buckets else { continue }
            text += " \(side) offset=\(buckets.offset) [" + buckets.bucketCounts.map(String.init).joined(separator: " ") + "]"
        }
        return text
    }

    private func statistics(_ sum: Double?, _ min: Double?, _ max: Double?) -> String {
        (sum.map { " sum=\(decimal($0))" } ?? "") + (min.map { " min=\(decimal($0))" } ?? "") + (max.map { " max=\(decimal($0))" } ?? "")
    }

    /// An integer or double value as written; `(none)` when the point carries none.
    private func number(_ value: OTLPNumberValue?) -> String {
        switch value {
        case .int(let int)?: String(int)
        case .double(let double)?: decimal(double)
        case nil: "(none)"
        }
    }

    private func decimal(_ double: Double) -> String {
        double.isNaN ? "NaN" : double == .infinity ? "+inf" : double == -.infinity ? "-inf" : String(double)
    }
}
