/// One attribute: OTLP's `KeyValue`.
///
/// `value` is `nil` when the `KeyValue` has no value at all, and ``OTLPAttributeValue/empty`` when it holds
/// an `AnyValue` with no member set; the two are distinct on the wire and in OTLP/JSON.
public struct OTLPAttribute: Sendable, Equatable {
    public var key: String
    public var value: OTLPAttributeValue?

    public init(_ key: String, _ value: OTLPAttributeValue?) {
        self.key = key
        self.value = value
    }
}
