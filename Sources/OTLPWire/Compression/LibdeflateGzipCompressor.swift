#if canImport(CLibdeflate)
internal import CLibdeflate

/// Gzip members from libdeflate (Linux): a whole member's input in one call, through one compressor allocated
/// for this level and reused for every member, freed with this object.
final class LibdeflateGzipCompressor: GzipMemberCompressor {
    let level: Int32
    private var compressor: OpaquePointer?
    /// Where a member is compressed to before it is appended: grown to the largest bound needed so far.
    private var scratch = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    /// - Parameter level: libdeflate level; the deflater passes zlib's 0...9 (libdeflate accepts 0...12).
    init(level: Int32) {
        self.level = level
    }

    deinit {
        libdeflate_free_compressor(compressor)
        scratch.deallocate()
    }

    func prepare() throws(OTLPWriteError) {
        guard compressor == nil else { return }
        guard let made = libdeflate_alloc_compressor(level) else {
            throw LibdeflateError(
                "libdeflate_alloc_compressor", detail: "level \(level): out of memory, or a level outside 0...12"
            ).writeError
        }
        compressor = made
    }

    func compressMember(_ input: UnsafeRawBufferPointer, into out: inout [UInt8]) throws(OTLPWriteError) {
        try prepare()
        let bound = libdeflate_gzip_compress_bound(compressor, input.count)
        if scratch.count < bound {
            scratch.deallocate()
            scratch = .allocate(byteCount: bound, alignment: 16)
        }
        // An empty input has no base address; libdeflate reads none of it, but wants a pointer.
        let produced = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1) { empty in
            libdeflate_gzip_compress(
                compressor, input.baseAddress ?? UnsafeRawPointer(empty.baseAddress!), input.count, scratch.baseAddress,
                scratch.count)
        }
        // 0: the output did not fit, which the bound rules out; never a member to write.
        guard produced > 0 else {
            throw LibdeflateError(
                "libdeflate_gzip_compress", detail: "returned 0 for \(input.count) bytes in \(scratch.count) bytes of room"
            ).writeError
        }
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[..<produced]))
    }
}
#endif
