/// Where a reader gets its bytes from: a file, standard input, or memory.
public protocol OTLPByteSource: AnyObject {
    /// Reads up to `buffer.count` bytes; returns 0 only at the end of the input.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(OTLPReadError) -> Int
}
