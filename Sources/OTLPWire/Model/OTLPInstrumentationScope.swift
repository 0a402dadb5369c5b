/// The library or module that produced telemetry: OTLP's `InstrumentationScope`.
public struct OTLPInstrumentationScope: Sendable, Equatable {
    /// The library or module's name (`io.opentelemetry.contrib.mongodb`, `checkout`).
    public var name: String
    /// Its version; empty when unknown.
    public var version: String
    /// Attributes of the scope itself, in order.
    public var attributes: [OTLPAttribute]
    /// How many attributes were dropped because of limits.
    public var droppedAttributesCount: UInt32

    /// A scope named `name`, with the other fields empty unless given.
    public init(name: String, version: String = "", attributes: [OTLPAttribute] = [], droppedAttributesCount: UInt32 = 0) {
        self.name = name
        self.version = version
        self.attributes = attributes
        self.droppedAttributesCount = droppedAttributesCount
    }
}
