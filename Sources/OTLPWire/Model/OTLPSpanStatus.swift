/// The outcome of a span: OTLP's `Status`.
public struct OTLPSpanStatus: Sendable, Equatable {
    /// A status code, kept as its raw enum number so unknown values survive.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        public static let unset = Code(rawValue: 0)
        public static let ok = Code(rawValue: 1)
        public static let error = Code(rawValue: 2)

        public var description: String {
            switch rawValue {
            case 0: "UNSET"
            case 1: "OK"
            case 2: "ERROR"
            default: "CODE(\(rawValue))"
            }
        }
    }

    public var code: Code
    /// A developer-facing message, usually set only for ``Code/error``.
    public var message: String

    public init(code: Code, message: String = "") {
        self.code = code
        self.message = message
    }
}
