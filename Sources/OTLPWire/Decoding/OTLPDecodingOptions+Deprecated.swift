// Former names of the record size limit, which is now `maxRecordBytes` everywhere (`OTLPRecordReader`,
// `--max-record-bytes`).
extension OTLPDecodingOptions {
    /// The former name of ``maxRecordBytes``.
    @available(*, deprecated, renamed: "maxRecordBytes")
    public var maxMessageBytes: Int {
        get { maxRecordBytes }
        set { maxRecordBytes = newValue }
    }

    /// The former name of ``maxRecordBytesRange``.
    @available(*, deprecated, renamed: "maxRecordBytesRange")
    public static var maxMessageBytesRange: ClosedRange<Int> { maxRecordBytesRange }

    /// The former spelling of ``init(maxRecordBytes:maxNestingDepth:maxAttributesPerItem:maxDecodedBytes:)``.
    @available(*, deprecated, renamed: "init(maxRecordBytes:maxNestingDepth:maxAttributesPerItem:maxDecodedBytes:)")
    public init(
        maxMessageBytes: Int, maxNestingDepth: Int = OTLPDecodingOptions.default.maxNestingDepth,
        maxAttributesPerItem: Int = OTLPDecodingOptions.default.maxAttributesPerItem,
        maxDecodedBytes: Int = OTLPDecodingOptions.default.maxDecodedBytes
    ) {
        self.init(
            maxRecordBytes: maxMessageBytes, maxNestingDepth: maxNestingDepth, maxAttributesPerItem: maxAttributesPerItem,
            maxDecodedBytes: maxDecodedBytes)
    }
}
