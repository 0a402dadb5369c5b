/// One record of a stream as read, checked as thoroughly as decoding would check it
/// (``OTLPRecordReader/nextChecked()``): its bytes can be sent on without decoding and encoding again.
public struct OTLPCheckedRecord: Sendable {
    /// 0-based position in the stream.
    public var index: Int
    /// Offset of the record's first byte in the decompressed stream.
    public var streamOffset: Int
    /// The message as read, without its framing: an `Export*ServiceRequest` in protobuf, or (``isJSON``) one
    /// line of OTLP JSON without its newline.
    public var bytes: [UInt8]
    /// The signal of the request.
    public var signal: OTLPSignal
    /// Spans or log records in the request.
    public var itemCount: Int
    /// Whether ``bytes`` is OTLP JSON (a JSON-lines stream) rather than protobuf.
    public var isJSON: Bool
}
