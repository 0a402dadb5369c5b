/// A MetricKit histogram: buckets with measurement bounds and counts, in index order.
public struct MetricKitHistogram: Sendable, Equatable {
    public struct Bucket: Sendable, Equatable {
        public var start: Double
        public var end: Double
        public var count: Int
    }

    public var buckets: [Bucket]
    public var unit: MetricKitMeasurement.BaseUnit

    /// Σ count.
    public var totalCount: Int { buckets.reduce(0) { $0 + $1.count } }

    /// The bucket-midpoint mean, Σ(count × (start + end) / 2) / Σ count (the reference's estimate).
    public var average: Double? {
        let total = totalCount
        guard total > 0 else { return nil }
        return buckets.reduce(0) { $0 + Double($1.count) * ($1.start + $1.end) / 2 } / Double(total)
    }

    /// The value below which `fraction` (0...1) of the samples lie, estimated by linear interpolation
    /// within the bucket where the cumulative count reaches it (buckets in order of their start).
    public func percentile(_ fraction: Double) -> Double? {
        let total = totalCount
        guard total > 0 else { return nil }
        let target = fraction * Double(total)
        var cumulative = 0.0
        for bucket in buckets.sorted(by: { $0.start < $1.start }) where bucket.count > 0 {
            let next = cumulative + Double(bucket.count)
            if next >= target {
                let within = (target - cumulative) / Double(bucket.count)
                return bucket.start + (bucket.end - bucket.start) * min(max(within, 0), 1)
            }
            cumulative = next
        }
        return buckets.last.map(\.end)
    }
}
