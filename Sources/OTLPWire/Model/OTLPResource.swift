/// The entity that produces telemetry (a service, an app on a device): OTLP's `Resource`.
public struct OTLPResource: Sendable, Equatable {
    /// Attributes such as `service.name`, in order.
    public var attributes: [OTLPAttribute]
    /// How many attributes were dropped because of limits.
    public var droppedAttributesCount: UInt32
    /// Entity references (OTLP development feature).
    public var entityRefs: [OTLPEntityRef]

    public init(attributes: [OTLPAttribute] = [], droppedAttributesCount: UInt32 = 0, entityRefs: [OTLPEntityRef] = []) {
        self.attributes = attributes
        self.droppedAttributesCount = droppedAttributesCount
        self.entityRefs = entityRefs
    }
}

/// A reference from a resource to an entity it describes: OTLP's `EntityRef` (development).
public struct OTLPEntityRef: Sendable, Equatable {
    public var schemaURL: String
    public var type: String
    public var idKeys: [String]
    public var descriptionKeys: [String]

    public init(schemaURL: String = "", type: String, idKeys: [String] = [], descriptionKeys: [String] = []) {
        self.schemaURL = schemaURL
        self.type = type
        self.idKeys = idKeys
        self.descriptionKeys = descriptionKeys
    }
}
