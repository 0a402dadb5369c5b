/// One distribution over exponentially sized buckets: OTLP's `ExponentialHistogramDataPoint`.
///
/// Bucket `index` covers `(base^index, base^(index+1)]` with `base = 2^(2^-scale)`; values whose magnitude
/// is at most ``zeroThreshold`` are counted in ``zeroCount``.
public struct OTLPExponentialHistogramDataPoint: Sendable, Equatable {
    /// A run of consecutive buckets: OTLP's `ExponentialHistogramDataPoint.Buckets`.
    public struct Buckets: Sendable, Equatable {
        /// The index of the first bucket of ``bucketCounts``.
        public var offset: Int32
        /// How many values fell in each bucket, from bucket ``offset`` on.
        public var bucketCounts: [UInt64]

        /// Buckets from index `offset` on.
        public init(offset: Int32 = 0, bucketCounts: [UInt64] = []) {
            self.offset = offset
            self.bucketCounts = bucketCounts
        }
    }

    /// The point's attributes (its dimensions), in order.
    public var attributes: [OTLPAttribute]
    /// When the aggregation started; 0 when not given.
    public var startTimeUnixNano: UInt64
    /// When the aggregation ended.
    public var timeUnixNano: UInt64
    /// How many values were recorded.
    public var count: UInt64
    /// Their sum; `nil` when not given.
    public var sum: Double?
    /// The resolution of the buckets: higher is finer.
    public var scale: Int32
    /// How many values were (within ``zeroThreshold`` of) zero.
    public var zeroCount: UInt64
    /// The buckets of positive values; `nil` when the point carries none.
    public var positive: Buckets?
    /// The buckets of negative values (by magnitude); `nil` when the point carries none.
    public var negative: Buckets?
    /// OTLP's `DataPointFlags`: bit 0 set means no value was recorded.
    public var flags: UInt32
    /// Sample measurements behind the distribution, in order.
    public var exemplars: [OTLPExemplar]
    /// The smallest value recorded; `nil` when not given.
    public var min: Double?
    /// The largest value recorded; `nil` when not given.
    public var max: Double?
    /// The largest magnitude counted as zero; 0 when not given.
    public var zeroThreshold: Double

    /// A distribution of `count` values ending at `timeUnixNano`, with the other fields empty unless given.
    public init(
        timeUnixNano: UInt64, count: UInt64 = 0, sum: Double? = nil, scale: Int32 = 0, zeroCount: UInt64 = 0,
        positive: Buckets? = nil, negative: Buckets? = nil, attributes: [OTLPAttribute] = [], startTimeUnixNano: UInt64 = 0,
        exemplars: [OTLPExemplar] = [], flags: UInt32 = 0, min: Double? = nil, max: Double? = nil, zeroThreshold: Double = 0
    ) {
        self.attributes = attributes
        self.startTimeUnixNano = startTimeUnixNano
        self.timeUnixNano = timeUnixNano
        self.count = count
        self.sum = sum
        self.scale = scale
        self.zeroCount = zeroCount
        self.positive = positive
        self.negative = negative
        self.flags = flags
        self.exemplars = exemplars
        self.min = min
        self.max = max
        self.zeroThreshold = zeroThreshold
    }
}
