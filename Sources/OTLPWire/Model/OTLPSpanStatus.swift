/// The outcome of a span: OTLP's `Status`.
public struct OTLPSpanStatus: Sendable, Equatable {
    /// A status code, kept as its raw enum number so unknown values survive.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// 0: the default; the operation's outcome was not stated.
        public static let unset = Code(rawValue: 0)
        /// 1: the application developer or operator marked the operation successful.
        public static let ok = Code(rawValue: 1)
        /// 2: the operation failed; ``OTLPSpanStatus/message`` may say why.
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

    /// Unset, ok or error (or an unknown number, kept as read).
    public var code: Code
    /// A developer-facing message, usually set only for ``Code/error``.
    public var message: String

    /// A status with `code` and, optionally, a message.
    public init(code: Code, message: String = "") {
        self.code = code
        self.message = message
    }
}
