/// Limits a decoder applies to untrusted input before protobuf-c sees it.
public struct OTLPDecodingOptions: Sendable, Equatable {
    /// Largest message accepted, in bytes. Default 64 MiB. Framed readers apply it to each length prefix
    /// before reading the record.
    public var maxMessageBytes: Int
    /// Deepest message nesting accepted below the request (the request is level 0, a span attribute's value
    /// level 5). Default 100, as in the reference implementation and swift-protobuf. protobuf-c 1.4.1's
    /// unpack recurses once per level, so this is what keeps hostile input from exhausting the stack.
    public var maxNestingDepth: Int
    /// Most attributes accepted on one span, span event, span link, log record, resource or instrumentation
    /// scope (the entries of a kvlist value are not counted). Default 10,000: far above what SDKs send (their
    /// default limit is 128), low enough that one item cannot make a reader build a map of millions of keys.
    /// Checked on the wire before protobuf-c unpacks, and in JSON before attributes are decoded.
    public var maxAttributesPerItem: Int

    public init(maxMessageBytes: Int = 64 * 1024 * 1024, maxNestingDepth: Int = 100, maxAttributesPerItem: Int = 10_000) {
        self.maxMessageBytes = maxMessageBytes
        self.maxNestingDepth = maxNestingDepth
        self.maxAttributesPerItem = maxAttributesPerItem
    }

    public static let `default` = OTLPDecodingOptions()
}
