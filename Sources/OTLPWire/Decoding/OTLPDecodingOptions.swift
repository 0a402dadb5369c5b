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
    /// Most memory, in bytes, that unpacking one message may take, as the pre-scan estimates protobuf-c's
    /// allocations (structs, pointer arrays, copies of strings and bytes, unknown fields). Default 1 GiB.
    /// OTLP data typically unpacks to 2-10 times its wire size, but a message of empty attributes takes
    /// about 64 times: without this limit one 64 MiB record could make a reader allocate 4 GB. (Protobuf
    /// input only; JSON lines are bounded by ``OTLPReaderOptions/maxLineBytes``.)
    public var maxDecodedBytes: Int

    public init(
        maxMessageBytes: Int = 64 * 1024 * 1024, maxNestingDepth: Int = 100, maxAttributesPerItem: Int = 10_000,
        maxDecodedBytes: Int = 1 << 30
    ) {
        self.maxMessageBytes = maxMessageBytes
        self.maxNestingDepth = maxNestingDepth
        self.maxAttributesPerItem = maxAttributesPerItem
        self.maxDecodedBytes = maxDecodedBytes
    }

    public static let `default` = OTLPDecodingOptions()
}
