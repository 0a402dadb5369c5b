/// Quantiles of a distribution: OTLP's `SummaryDataPoint`.
public struct OTLPSummaryDataPoint: Sendable, Equatable {
    /// One quantile and its value: OTLP's `SummaryDataPoint.ValueAtQuantile`.
    public struct ValueAtQuantile: Sendable, Equatable {
        /// The quantile, from 0 (the minimum) to 1 (the maximum).
        public var quantile: Double
        /// The value at that quantile.
        public var value: Double

        /// The value at `quantile`.
        public init(quantile: Double, value: Double) {
            self.quantile = quantile
            self.value = value
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
    /// Their sum.
    public var sum: Double
    /// The quantiles, in order.
    public var quantileValues: [ValueAtQuantile]
    /// OTLP's `DataPointFlags`: bit 0 set means no value was recorded.
    public var flags: UInt32

    /// A summary of `count` values ending at `timeUnixNano`, with the other fields empty unless given.
    public init(
        timeUnixNano: UInt64, count: UInt64 = 0, sum: Double = 0, quantileValues: [ValueAtQuantile] = [],
        attributes: [OTLPAttribute] = [], startTimeUnixNano: UInt64 = 0, flags: UInt32 = 0
    ) {
        self.attributes = attributes
        self.startTimeUnixNano = startTimeUnixNano
        self.timeUnixNano = timeUnixNano
        self.count = count
        self.sum = sum
        self.quantileValues = quantileValues
        self.flags = flags
    }
}
