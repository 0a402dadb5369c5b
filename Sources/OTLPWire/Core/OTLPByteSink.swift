/// Where a writer puts its bytes.
public protocol OTLPByteSink: AnyObject {
    /// Writes all of `bytes`, or throws.
    func write(_ bytes: UnsafeRawBufferPointer) throws(OTLPWriteError)
    /// Makes written bytes durable (`fsync` for files); a no-op where that means nothing.
    func sync() throws(OTLPWriteError)
}
