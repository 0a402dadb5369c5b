/// Compresses one whole input into one complete gzip member (RFC 1952): what ``GzipDeflater`` hands a member's
/// buffered input to. Each compressor owns its C state, made once (``prepare()``) and reused for every member.
protocol GzipMemberCompressor: AnyObject {
    /// The compression level it was made for.
    var level: Int32 { get }

    /// Makes the C state (if not made yet); a level the library refuses is an ``OTLPWriteError/Code/compression``
    /// error here, before any input is taken.
    func prepare() throws(OTLPWriteError)

    /// Appends `input`, compressed as one complete gzip member (header, deflate stream, CRC-32 and size), to `out`.
    func compressMember(_ input: UnsafeRawBufferPointer, into out: inout [UInt8]) throws(OTLPWriteError)
}
