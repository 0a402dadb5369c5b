/// One record as framed in a stream, before decoding.
package struct OTLPRawRecord: Sendable {
    /// 0-based position in the stream.
    package var index: Int
    /// Offset of the record's first byte (its length prefix) in the decompressed stream.
    package var streamOffset: Int
    /// The message bytes (for `jsonl`, the line without its newline).
    package var bytes: [UInt8]
}
