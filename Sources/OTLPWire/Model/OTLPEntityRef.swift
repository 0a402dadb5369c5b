/// A reference from a resource to an entity it describes: OTLP's `EntityRef` (development).
public struct OTLPEntityRef: Sendable, Equatable {
    /// The schema URL of the entity's type and attributes; empty when unknown.
    public var schemaURL: String
    /// The entity type (`service`, `host`).
    public var type: String
    /// Keys of the resource attributes that identify the entity.
    public var idKeys: [String]
    /// Keys of the resource attributes that describe the entity without identifying it.
    public var descriptionKeys: [String]

    /// A reference to an entity of `type`, with the other fields empty unless given.
    public init(schemaURL: String = "", type: String, idKeys: [String] = [], descriptionKeys: [String] = []) {
        self.schemaURL = schemaURL
        self.type = type
        self.idKeys = idKeys
        self.descriptionKeys = descriptionKeys
    }
}
