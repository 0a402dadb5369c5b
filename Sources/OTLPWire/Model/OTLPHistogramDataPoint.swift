/// One distribution over explicit bucket bounds: OTLP's `HistogramDataPoint`.
public struct OTLPHistogramDataPoint: Sendable, Equatable {
    /// The point's attributes (its dimensions), in order.
    public var attributes: [OTLPAttribute]
    /// When the aggregation started; 0 when not given.
    public var startTimeUnixNano: UInt64
    /// When the aggregation ended.
    public var timeUnixNano: UInt64
    /// How many values were recorded.
    public var count: UInt64
    /// Their sum; `nil` when not given (OTLP leaves it out where negative values make it meaningless).
    public var sum: Double?
    /// How many values fell in each bucket: one more than ``explicitBounds`` when bounds are given.
    public var bucketCounts: [UInt64]
    /// The bucket bounds, ascending: bucket `i` holds values in `(bounds[i-1], bounds[i]]`.
    public var explicitBounds: [Double]
    /// Sample measurements behind the distribution, in order.
    public var exemplars: [OTLPExemplar]
    /// OTLP's `DataPointFlags`: bit 0 set means no value was recorded.
    public var flags: UInt32
    /// The smallest value recorded; `nil` when not given.
    public var min: Double?
    /// The largest value recorded; `nil` when not given.
    public var max: Double?

    /// A distribution of `count` values ending at `timeUnixNano`, with the other fields empty unless given.
    public init(
        timeUnixNano: UInt64, count: UInt64 = 0, sum: Double? = nil, bucketCounts: [UInt64] = [], explicitBounds: [Double] = [],
        attributes: [OTLPAttribute] = [], startTimeUnixNano: UInt64 = 0, exemplars: [OTLPExemplar] = [], flags: UInt32 = 0,
        min: Double? = nil, max: Double? = nil
    ) {
        self.attributes = attributes
        self.startTimeUnixNano = startTimeUnixNano
        self.timeUnixNano = timeUnixNano
        self.count = count
        self.sum = sum
        self.bucketCounts = bucketCounts
        self.explicitBounds = explicitBounds
        self.exemplars = exemplars
        self.flags = flags
        self.min = min
        self.max = max
    }
}
