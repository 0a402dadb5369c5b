/// One record as framed in a stream, before decoding.
public struct OTLPRawRecord: Sendable {
    /// 0-based position in the stream.
    public var index: Int
    /// Offset of the record's first byte (its length prefix) in the decompressed stream.
    public var streamOffset: Int
    /// The message bytes (for `jsonl`, the line without its newline).
    public var bytes: [UInt8]
}
