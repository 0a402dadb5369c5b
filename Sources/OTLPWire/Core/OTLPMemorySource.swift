/// Reads bytes held in memory.
public final class OTLPMemorySource: OTLPByteSource {
    private let bytes: [UInt8]
    private var position = 0

    /// A source that reads `bytes` from the start.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(OTLPReadError) -> Int {
        let count = min(buffer.count, bytes.count - position)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + position, byteCount: count) }
        position += count
        return count
    }
}
