/// One value of a gauge or sum: OTLP's `NumberDataPoint`.
public struct OTLPNumberDataPoint: Sendable, Equatable {
    /// The point's attributes (its dimensions), in order.
    public var attributes: [OTLPAttribute]
    /// When the aggregation of a cumulative or delta value started; 0 when not given.
    public var startTimeUnixNano: UInt64
    /// When the value was recorded or the aggregation ended.
    public var timeUnixNano: UInt64
    /// The value; `nil` when the point carries none.
    public var value: OTLPNumberValue?
    /// Sample measurements behind the value, in order.
    public var exemplars: [OTLPExemplar]
    /// OTLP's `DataPointFlags`: bit 0 set means no value was recorded (the value is a placeholder).
    public var flags: UInt32

    /// A point recorded at `timeUnixNano`, with the other fields empty unless given.
    public init(
        timeUnixNano: UInt64, value: OTLPNumberValue? = nil, attributes: [OTLPAttribute] = [], startTimeUnixNano: UInt64 = 0,
        exemplars: [OTLPExemplar] = [], flags: UInt32 = 0
    ) {
        self.attributes = attributes
        self.startTimeUnixNano = startTimeUnixNano
        self.timeUnixNano = timeUnixNano
        self.value = value
        self.exemplars = exemplars
        self.flags = flags
    }
}
