/// The library or module that produced telemetry: OTLP's `InstrumentationScope`.
public struct OTLPInstrumentationScope: Sendable, Equatable {
    public var name: String
    public var version: String
    public var attributes: [OTLPAttribute]
    public var droppedAttributesCount: UInt32

    public init(name: String, version: String = "", attributes: [OTLPAttribute] = [], droppedAttributesCount: UInt32 = 0) {
        self.name = name
        self.version = version
        self.attributes = attributes
        self.droppedAttributesCount = droppedAttributesCount
    }
}
