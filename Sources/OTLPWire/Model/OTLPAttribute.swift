/// One attribute: OTLP's `KeyValue`.
///
/// `value` is `nil` when the `KeyValue` has no value at all, and ``OTLPAttributeValue/empty`` when it holds
/// an `AnyValue` with no member set; the two are distinct on the wire and in OTLP/JSON.
public struct OTLPAttribute: Sendable, Equatable {
    /// The attribute's name (`http.request.method`).
    public var key: String
    /// The attribute's value; `nil` when the `KeyValue` has no value.
    public var value: OTLPAttributeValue?

    /// An attribute named `key` holding `value`.
    public init(_ key: String, _ value: OTLPAttributeValue?) {
        self.key = key
        self.value = value
    }
}
