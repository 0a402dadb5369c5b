/// Hands out bytes already read (while sniffing a format) before reading on from the source.
final class PrefixedSource: OTLPByteSource {
    private var prefix: [UInt8]
    private var position = 0
    private let source: any OTLPByteSource

    init(prefix: [UInt8], source: any OTLPByteSource) {
        self.prefix = prefix
        self.source = source
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(OTLPReadError) -> Int {
        if position < prefix.count {
            let count = min(buffer.count, prefix.count - position)
            prefix.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + position, byteCount: count) }
            position += count
            if position == prefix.count { prefix = [] ; position = 0; exhausted = true }
            return count
        }
        return try source.read(into: buffer)
    }

    private var exhausted = false
}

extension OTLPByteSource {
    /// Reads until `count` bytes or the end of the input.
    func readUpTo(_ count: Int) throws(OTLPReadError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let from = filled
            let read = try out.withUnsafeMutableBytes { raw in
                Result { () throws(OTLPReadError) in try self.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[from...])) }
            }.get()
            if read == 0 { break }
            filled += read
        }
        out.removeSubrange(filled...)
        return out
    }
}
