/// A checked protobuf message ready for protobuf-c: the caller's bytes, or a merged copy of them.
struct PreparedMessage {
    /// Spans or log records.
    var items: Int
    /// The message with repeated singular message fields merged; `nil` when the caller's bytes need no merge.
    var merged: [UInt8]?

    /// Calls `body` with the bytes to unpack: `merged`, or `original` when there is nothing merged.
    func withBytes<R>(
        _ original: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws(OTLPReadError) -> R
    ) throws(OTLPReadError) -> R {
        guard let merged else { return try body(original) }
        return try merged.withUnsafeBytes { buffer in Result { () throws(OTLPReadError) in try body(buffer) } }.get()
    }
}
