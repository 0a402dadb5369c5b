/// Limits a decoder applies to untrusted input before protobuf-c sees it.
///
/// Every limit has a documented range; decoders and readers refuse options outside it with
/// ``OTLPReadError/Code/invalidOptions`` rather than let a huge value overflow a size computation or the
/// stack.
public struct OTLPDecodingOptions: Sendable, Equatable {
    /// Largest record accepted, in bytes: a framed record's message, a bare message, or a JSON request read
    /// whole. Default 8 MiB (twice the Collector's gRPC receive default). Framed readers apply it to each
    /// length prefix before reading the record. Range 1...2,147,483,647.
    public var maxRecordBytes: Int
    /// Deepest message nesting accepted below the request (the request is level 0, a span attribute's value
    /// level 5). Default 100, as in the reference implementation and swift-protobuf. protobuf-c 1.4.1's
    /// unpack recurses once per level (about 1 KiB of stack each), so this is what keeps hostile input from
    /// exhausting the stack. Range 1...128.
    public var maxNestingDepth: Int
    /// Most attributes accepted on one span, span event, span link, log record, resource or instrumentation
    /// scope (the entries of a kvlist value are not counted), counted after merging repeated occurrences of
    /// a message, as protobuf defines. Default 10,000: far above what SDKs send (their default limit is
    /// 128), low enough that one item cannot make a reader build a map of millions of keys. Checked on the
    /// wire before protobuf-c unpacks, and in JSON before attributes are decoded. Range 0...1,000,000.
    public var maxAttributesPerItem: Int
    /// Most memory, in bytes, that decoding one message may take, as estimated before anything is built:
    /// protobuf-c's unpacked structs (pointer arrays, copies of strings and bytes, unknown fields) plus the
    /// Swift model built from them; for JSON, the parsed JSON tree plus the model. Default 32 MiB. OTLP data
    /// typically decodes to 2-10 times its wire size, but a message of empty spans or attributes takes
    /// about 200 times: without this limit one 7 MB record could make a reader allocate gigabytes. Range 1 byte
    /// to 64 GiB.
    public var maxDecodedBytes: Int

    /// The documented defaults: what an omitted argument means.
    public static let `default` = OTLPDecodingOptions(
        maxRecordBytes: 8 << 20, maxNestingDepth: 100, maxAttributesPerItem: 10_000, maxDecodedBytes: 32 << 20)

    /// Limits with ``default``'s values unless given; checked against their ranges when used.
    public init(
        maxRecordBytes: Int = OTLPDecodingOptions.default.maxRecordBytes,
        maxNestingDepth: Int = OTLPDecodingOptions.default.maxNestingDepth,
        maxAttributesPerItem: Int = OTLPDecodingOptions.default.maxAttributesPerItem,
        maxDecodedBytes: Int = OTLPDecodingOptions.default.maxDecodedBytes
    ) {
        self.maxRecordBytes = maxRecordBytes
        self.maxNestingDepth = maxNestingDepth
        self.maxAttributesPerItem = maxAttributesPerItem
        self.maxDecodedBytes = maxDecodedBytes
    }

    /// Accepted values of ``maxRecordBytes``: 1 byte to 2 GiB - 1 (protobuf's own limit on a message).
    package static let maxRecordBytesRange: ClosedRange<Int> = 1...Int(Int32.max)
    /// Accepted values of ``maxNestingDepth``: 1 to 128 levels. Decoding recurses once per level: protobuf-c's
    /// unpack takes about 1 KiB of stack per level, the Swift conversion and the JSON decoder up to 3 KiB in
    /// debug builds. 128 levels fit in a 512 KiB secondary-thread stack (the smallest default among
    /// supported platforms) with a third of it to spare. (The JSON parser itself does not recurse.)
    package static let maxNestingDepthRange: ClosedRange<Int> = 1...128
    /// Accepted values of ``maxAttributesPerItem``: 0 to 1,000,000.
    package static let maxAttributesPerItemRange: ClosedRange<Int> = 0...1_000_000
    /// Accepted values of ``maxDecodedBytes``: 1 byte to 64 GiB.
    package static let maxDecodedBytesRange: ClosedRange<Int> = 1...(1 << 36)

    /// Throws ``OTLPReadError/Code/invalidOptions`` naming the first limit outside its range.
    package func validate() throws(OTLPReadError) {
        try Self.check("maxRecordBytes", maxRecordBytes, Self.maxRecordBytesRange)
        try Self.check("maxNestingDepth", maxNestingDepth, Self.maxNestingDepthRange)
        try Self.check("maxAttributesPerItem", maxAttributesPerItem, Self.maxAttributesPerItemRange)
        try Self.check("maxDecodedBytes", maxDecodedBytes, Self.maxDecodedBytesRange)
    }

    static func check(_ name: String, _ value: Int, _ range: ClosedRange<Int>) throws(OTLPReadError) {
        guard range.contains(value) else {
            throw OTLPReadError(.invalidOptions, "\(name) is \(value), outside \(range.lowerBound)...\(range.upperBound)")
        }
    }
}
