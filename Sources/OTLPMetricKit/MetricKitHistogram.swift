/// A MetricKit histogram: buckets with measurement bounds and counts, in index order.
///
/// Counts come from untrusted payloads: every sum and product is checked, and the statistics are `nil`
/// when they cannot be computed exactly enough (a count total past `Int.max`, a non-finite result).
package struct MetricKitHistogram: Sendable, Equatable {
    /// One bucket: `count` samples between `start` and `end` (in the histogram's ``unit``).
    package struct Bucket: Sendable, Equatable {
        /// Lower bound, in the histogram's unit.
        package var start: Double
        /// Upper bound, in the histogram's unit.
        package var end: Double
        /// Samples in the bucket.
        package var count: Int

        /// A bucket of `count` samples between `start` and `end`.
        package init(start: Double, end: Double, count: Int) {
            self.start = start
            self.end = end
            self.count = count
        }
    }

    /// The buckets, in index order.
    package var buckets: [Bucket]
    /// The base unit of the bounds.
    package var unit: MetricKitMeasurement.BaseUnit

    /// A histogram of `buckets` whose bounds are in `unit`.
    package init(buckets: [Bucket], unit: MetricKitMeasurement.BaseUnit) {
        self.buckets = buckets
        self.unit = unit
    }

    /// Σ count; `nil` when a count is negative or the sum overflows `Int`.
    package var totalCount: Int? {
        var total = 0
        for bucket in buckets {
            guard bucket.count >= 0 else { return nil }
            let (sum, overflow) = total.addingReportingOverflow(bucket.count)
            if overflow { return nil }
            total = sum
        }
        return total
    }

    /// The bucket-midpoint mean, Σ(count × (start + end) / 2) / Σ count (the reference's estimate); `nil`
    /// without samples, or when the total count or the mean cannot be computed (see ``totalCount``).
    package var average: Double? {
        guard let total = totalCount, total > 0 else { return nil }
        // Each midpoint weighted by its share of the samples: no intermediate sum exceeds the largest midpoint.
        let mean = buckets.reduce(0) { $0 + Double($1.count) / Double(total) * ($1.start / 2 + $1.end / 2) }
        return mean.isFinite ? mean : nil
    }

    /// The value below which `fraction` (0...1) of the samples lie, estimated by linear interpolation
    /// within the bucket where the cumulative count reaches it (buckets in order of their start); `nil`
    /// without samples or when the estimate is not finite.
    package func percentile(_ fraction: Double) -> Double? {
        guard let total = totalCount, total > 0, fraction.isFinite else { return nil }
        let target = min(max(fraction, 0), 1) * Double(total)
        var cumulative = 0.0
        for bucket in buckets.sorted(by: { $0.start < $1.start }) where bucket.count > 0 {
            let next = cumulative + Double(bucket.count)
            if next >= target {
                let within = (target - cumulative) / Double(bucket.count)
                let value = bucket.start + (bucket.end - bucket.start) * min(max(within, 0), 1)
                return value.isFinite ? value : nil
            }
            cumulative = next
        }
        return buckets.last.map(\.end)
    }
}
