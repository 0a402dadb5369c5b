/// One record of a stream as read, checked as thoroughly as decoding would check it
/// (``OTLPRecordReader/nextChecked()``): its bytes can be sent on without decoding and encoding again.
package struct OTLPCheckedRecord: Sendable {
    /// 0-based position in the stream.
    package var index: Int
    /// Offset of the record's first byte in the decompressed stream.
    package var streamOffset: Int
    /// The message as read, without its framing: an `Export*ServiceRequest` in protobuf, or (``isJSON``) one
    /// line of OTLP JSON without its newline.
    package var bytes: [UInt8]
    /// The signal of the request.
    package var signal: OTLPSignal
    /// Spans or log records in the request.
    package var itemCount: Int
    /// Whether ``bytes`` is OTLP JSON (a JSON-lines stream) rather than protobuf.
    package var isJSON: Bool
}
