/// A value of an attribute or a log body: OTLP's `AnyValue`.
///
/// Every variant of the OTLP `AnyValue` oneof is a case; ``empty`` is an `AnyValue` with no member set.
/// (The profiles-only `string_value_strindex` member is read as ``empty``, as the OTLP specification
/// asks of receivers of other signals.)
///
/// Not `indirect`: the recursive cases hold arrays, which already give the indirection, so scalar and
/// string values are stored inline, with no heap box per value.
public enum OTLPAttributeValue: Sendable, Equatable {
    /// A UTF-8 string.
    case string(String)
    /// A boolean.
    case bool(Bool)
    /// A signed 64-bit integer.
    case int(Int64)
    /// A 64-bit floating-point number.
    case double(Double)
    /// Raw bytes.
    case bytes([UInt8])
    /// An ordered list of values: OTLP's `ArrayValue`.
    case array([OTLPAttributeValue])
    /// Nested attributes, in order: OTLP's `KeyValueList`.
    case keyValueList([OTLPAttribute])
    /// An `AnyValue` with no member set.
    case empty
}

extension OTLPAttributeValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: OTLPAttributeValue...) { self = .array(elements) }
}
