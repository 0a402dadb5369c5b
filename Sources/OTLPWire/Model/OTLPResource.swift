/// The entity that produces telemetry (a service, an app on a device): OTLP's `Resource`.
public struct OTLPResource: Sendable, Equatable {
    /// Attributes such as `service.name`, in order.
    public var attributes: [OTLPAttribute]
    /// How many attributes were dropped because of limits.
    public var droppedAttributesCount: UInt32
    /// Entity references (OTLP development feature).
    public var entityRefs: [OTLPEntityRef]

    /// A resource with the given attributes (none unless given).
    public init(attributes: [OTLPAttribute] = [], droppedAttributesCount: UInt32 = 0, entityRefs: [OTLPEntityRef] = []) {
        self.attributes = attributes
        self.droppedAttributesCount = droppedAttributesCount
        self.entityRefs = entityRefs
    }
}
