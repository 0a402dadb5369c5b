/// The role of a span in a request: OTLP's `Span.SpanKind`.
///
/// A struct over the raw enum number, so values outside the known range (which a reader keeps as they
/// are) stay representable.
public struct OTLPSpanKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let unspecified = OTLPSpanKind(rawValue: 0)
    public static let `internal` = OTLPSpanKind(rawValue: 1)
    public static let server = OTLPSpanKind(rawValue: 2)
    public static let client = OTLPSpanKind(rawValue: 3)
    public static let producer = OTLPSpanKind(rawValue: 4)
    public static let consumer = OTLPSpanKind(rawValue: 5)

    public var description: String {
        switch rawValue {
        case 0: "UNSPECIFIED"
        case 1: "INTERNAL"
        case 2: "SERVER"
        case 3: "CLIENT"
        case 4: "PRODUCER"
        case 5: "CONSUMER"
        default: "KIND(\(rawValue))"
        }
    }
}
