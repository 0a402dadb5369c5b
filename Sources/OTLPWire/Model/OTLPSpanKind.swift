/// The role of a span in a request: OTLP's `Span.SpanKind`.
///
/// A struct over the raw enum number, so values outside the known range (which a reader keeps as they
/// are) stay representable.
public struct OTLPSpanKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// 0: no kind given; receivers may treat it as ``internal``.
    public static let unspecified = OTLPSpanKind(rawValue: 0)
    /// 1: an operation inside an application (the default).
    public static let `internal` = OTLPSpanKind(rawValue: 1)
    /// 2: the handling of a synchronous request from a remote client.
    public static let server = OTLPSpanKind(rawValue: 2)
    /// 3: a synchronous request to a remote service.
    public static let client = OTLPSpanKind(rawValue: 3)
    /// 4: the sending of an asynchronous message (often ends before its consumer starts).
    public static let producer = OTLPSpanKind(rawValue: 4)
    /// 5: the processing of an asynchronous message from a producer.
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
