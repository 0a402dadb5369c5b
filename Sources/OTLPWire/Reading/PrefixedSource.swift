/// Hands out bytes already read (while sniffing a format) before reading on from the source.
///
/// An error met while those bytes were read is thrown only once they have all been handed out, so the
/// records before a fault are still delivered.
final class PrefixedSource: OTLPByteSource {
    private var prefix: [UInt8]
    private var position = 0
    private let source: any OTLPByteSource
    private var pendingError: OTLPReadError?

    init(prefix: [UInt8], source: any OTLPByteSource, pendingError: OTLPReadError? = nil) {
        self.prefix = prefix
        self.source = source
        self.pendingError = pendingError
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(OTLPReadError) -> Int {
        if position < prefix.count {
            let count = min(buffer.count, prefix.count - position)
            prefix.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + position, byteCount: count) }
            position += count
            if position == prefix.count { prefix = []; position = 0 }
            return count
        }
        if let error = pendingError { throw error }
        return try source.read(into: buffer)
    }
}

extension OTLPByteSource {
    /// Reads until `count` bytes, the end of the input, or an error, which is returned beside the bytes
    /// read before it.
    package func readUpTo(_ count: Int) -> (bytes: [UInt8], error: OTLPReadError?) {
        // Grown as bytes arrive (doubling), so a small input does not cost a full-size buffer.
        var out = [UInt8](repeating: 0, count: min(count, 64 * 1024))
        var filled = 0
        var failure: OTLPReadError?
        while filled < count {
            if filled == out.count {
                // One block copy into a zeroed buffer (an element-wise append is slow in debug builds).
                var grown = [UInt8](repeating: 0, count: out.count + min(out.count, count - out.count))
                grown.withUnsafeMutableBytes { new in
                    out.withUnsafeBytes { old in new.baseAddress!.copyMemory(from: old.baseAddress!, byteCount: old.count) }
                }
                out = grown
            }
            let from = filled
            let result = out.withUnsafeMutableBytes { raw in
                Result { () throws(OTLPReadError) in try self.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[from...])) }
            }
            switch result {
            case .success(let read):
                if read == 0 { out.removeSubrange(filled...); return (out, nil) }
                filled += read
            case .failure(let error):
                failure = error
            }
            if failure != nil { break }
        }
        out.removeSubrange(filled...)
        return (out, failure)
    }
}
