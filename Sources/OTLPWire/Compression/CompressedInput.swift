/// The compressed bytes a decompressor has read from its source and not consumed yet, in one buffer of its own
/// (refilled in place: unconsumed bytes move to the front). Shared by the gzip and zstd readers.
final class CompressedInput {
    private let source: any OTLPByteSource
    private let buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    /// Whether the source has reported its end.
    private(set) var sourceEnded = false

    init(source: any OTLPByteSource, chunkSize: Int) {
        self.source = source
        buffer = .allocate(byteCount: chunkSize, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// Bytes read and not consumed.
    var available: Int { end - start }

    /// The bytes read and not consumed.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: buffer[start..<end]) }

    /// Whether the buffer is full of unconsumed bytes (a refill can bring nothing more).
    var isFull: Bool { start == 0 && end == buffer.count }

    /// Marks the first `count` available bytes consumed.
    func consume(_ count: Int) { start += count }

    /// Reads more compressed input, keeping unconsumed bytes. Returns false at the end of the source.
    func refill() throws(OTLPReadError) -> Bool {
        if sourceEnded { return false }
        if start > 0 {
            if available > 0 { buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + start, byteCount: available) }
            end = available
            start = 0
        }
        guard end < buffer.count else { return true }
        let count = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[end...]))
        if count == 0 {
            sourceEnded = true
            return false
        }
        end += count
        return true
    }
}
