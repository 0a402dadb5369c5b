/// Limits a decoder applies to untrusted input before protobuf-c sees it.
public struct OTLPDecodingOptions: Sendable, Equatable {
    /// Largest message accepted, in bytes. Default 64 MiB. Framed readers apply it to each length prefix
    /// before reading the record.
    public var maxMessageBytes: Int
    /// Deepest message nesting accepted below the request (the request is level 0, a span attribute's value
    /// level 5). Default 100, as in the reference implementation and swift-protobuf. protobuf-c 1.4.1's
    /// unpack recurses once per level, so this is what keeps hostile input from exhausting the stack.
    public var maxNestingDepth: Int

    public init(maxMessageBytes: Int = 64 * 1024 * 1024, maxNestingDepth: Int = 100) {
        self.maxMessageBytes = maxMessageBytes
        self.maxNestingDepth = maxNestingDepth
    }

    public static let `default` = OTLPDecodingOptions()
}
