/// One-shot zstd for this package's readers, writers and other libraries, through the same libzstd code as the
/// streaming readers.
package enum OTLPZstd {
    /// The four bytes a zstd frame starts with (0xFD2FB528, little-endian).
    package static let magic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]

    /// Whether `bytes` start with a zstd frame or a skippable frame (magic 0x184D2A50...0x184D2A5F).
    package static func startsFrame(_ bytes: some Collection<UInt8>) -> Bool {
        guard bytes.count >= 4 else { return false }
        if bytes.starts(with: magic) { return true }
        let head = Array(bytes.prefix(4))
        return head[0] & 0xF0 == 0x50 && head[1] == 0x2A && head[2] == 0x4D && head[3] == 0x18
    }

    /// `bytes` as one complete zstd frame at `level`.
    package static func compress(
        _ bytes: UnsafeRawBufferPointer, level: Int32 = ZstdCompressor.defaultLevel
    ) throws(OTLPWriteError)
        -> [UInt8]
    {
        var out: [UInt8] = []
        try ZstdCompressor(level: level).compressFrame(bytes, into: &out)
        return out
    }

    /// The decompressed content of `bytes`: one or more zstd frames (skippable frames are skipped). More than
    /// `maxBytes` of output, or more than `maxInflationRatio` to 1 past `ratioGraceBytes`, is a `zstd_too_large`
    /// error; a damaged or cut frame is the `zstd_corrupt` or `zstd_truncated` error for it, its offset counted
    /// from the start of `bytes` (``OTLPReadError/OffsetBase/record``). Memory: the output, never grown past
    /// `maxBytes`, and the decompressor's window (bounded as ``ZstdDecompressor`` says).
    package static func decompress(
        _ bytes: [UInt8], maxBytes: Int, maxInflationRatio: Int = .max, ratioGraceBytes: Int = 16 << 20
    ) throws(OTLPReadError) -> [UInt8] {
        let decompressor = ZstdDecompressor(
            source: OTLPMemorySource(bytes), chunkSize: max(1, min(bytes.count, 64 << 10)), maxDecompressedBytes: maxBytes,
            maxInflationRatio: maxInflationRatio, ratioGraceBytes: ratioGraceBytes)
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer { chunk.deallocate() }
        var out: [UInt8] = []
        do throws(OTLPReadError) {
            while true {
                let count = try decompressor.read(into: chunk)
                guard count > 0 else { break }
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[..<count]))
            }
        } catch {
            var located = error
            if located.offsetIn == .file { located.offsetIn = .record }
            throw located
        }
        return out
    }
}
