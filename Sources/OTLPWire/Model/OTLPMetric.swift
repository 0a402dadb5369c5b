/// One metric with its data points: OTLP's `Metric`.
public struct OTLPMetric: Sendable, Equatable {
    /// The metric's name (`http.server.request.duration`).
    public var name: String
    /// What the metric measures, for people; empty when not given.
    public var description: String
    /// The unit of its values, in UCUM (`ms`, `By`, `{request}`); empty when not given.
    public var unit: String
    /// Additional metadata attributes of the metric (not of its points), in order.
    public var metadata: [OTLPAttribute]
    /// The points and how they aggregate; `nil` when the metric carries no data field.
    public var data: OTLPMetricData?

    /// A metric named `name`, with the other fields empty unless given.
    public init(name: String, description: String = "", unit: String = "", metadata: [OTLPAttribute] = [], data: OTLPMetricData? = nil) {
        self.name = name
        self.description = description
        self.unit = unit
        self.metadata = metadata
        self.data = data
    }
}
