/// One-shot gzip compression for this package's other libraries (an OTLP/HTTP request body with
/// `Content-Encoding: gzip`), through the same zlib code as the file writers.
package enum OTLPGzip {
    /// `bytes` as one complete gzip member, compressed at zlib `level` (0...9).
    package static func compress(_ bytes: UnsafeRawBufferPointer, level: Int32 = 6) throws(OTLPWriteError) -> [UInt8] {
        let deflater = GzipDeflater(level: level)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 4 + 64)
        try deflater.compress(bytes, into: &out)
        try deflater.finishMember(into: &out)
        return out
    }
}
