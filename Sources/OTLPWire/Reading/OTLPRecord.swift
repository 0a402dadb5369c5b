/// One decoded record of a stream.
public struct OTLPRecord: Sendable {
    /// 0-based position in the stream.
    public var index: Int
    /// Offset of the record's first byte in the decompressed stream.
    package var streamOffset: Int
    /// Size of the message (without its framing).
    public var byteCount: Int
    /// The decoded request.
    public var payload: OTLPPayload
}
