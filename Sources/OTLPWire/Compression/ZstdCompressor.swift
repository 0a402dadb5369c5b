internal import CZstd

/// Compresses messages into complete zstd frames, one frame per call, reusing one `ZSTD_CCtx`.
final class ZstdCompressor {
    private let context: OpaquePointer
    /// The zstd level; 0 stores (raw blocks, see ``storedFrame(_:into:)``).
    let level: Int32

    /// The default compression level (libzstd's own default, 3).
    static let defaultLevel: Int32 = 3

    /// - Parameter level: a zstd level, clamped to libzstd's range (1...22 and the negative fast levels); 0 stores.
    init(level: Int32 = ZstdCompressor.defaultLevel) {
        context = ZSTD_createCCtx()
        self.level = level == 0 ? 0 : min(max(level, ZSTD_minCLevel()), ZSTD_maxCLevel())
    }

    deinit { ZSTD_freeCCtx(context) }

    /// The largest raw block: 128 KiB, zstd's block size limit, and the stored frames' window.
    static let storedBlockBytes = 128 << 10

    /// Appends `bytes` to `out` as one zstd frame of raw (stored) blocks, which any decoder reads at no cost
    /// and which never inflates more than 1:1 (RFC 8878 sections 3.1.1.1 and 3.1.1.2): the frame header
    /// (a descriptor with an 8-byte content size and no checksum, a 128 KiB window), then blocks of at most
    /// 128 KiB, each a 3-byte header (last-block flag, type 0 = raw, size) and its bytes.
    static func storedFrame(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        out += OTLPZstd.magic
        out.append(0xC0)  // Frame_Content_Size_Flag 3 (8 bytes), not single-segment, no checksum, no dictionary
        out.append(7 << 3)  // Window_Descriptor: exponent 7, 2^(10+7) = 128 KiB
        withUnsafeBytes(of: UInt64(bytes.count).littleEndian) { out += $0 }
        var start = 0
        repeat {
            let end = min(start + storedBlockBytes, bytes.count)
            let header = UInt32(end - start) << 3 | (end == bytes.count ? 1 : 0)
            out += [UInt8(truncatingIfNeeded: header), UInt8(truncatingIfNeeded: header >> 8), UInt8(truncatingIfNeeded: header >> 16)]
            out += UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            start = end
        } while start < bytes.count
    }

    /// Appends `bytes` to `out` as one complete zstd frame (content size and checksum in its header and trailer;
    /// stored blocks at level 0).
    func compressFrame(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) throws(OTLPWriteError) {
        guard level != 0 else { return Self.storedFrame(bytes, into: &out) }
        try call(ZSTD_CCtx_reset(context, ZSTD_reset_session_only), "ZSTD_CCtx_reset")
        try call(ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level), "ZSTD_CCtx_setParameter")
        try call(ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1), "ZSTD_CCtx_setParameter")
        let bound = ZSTD_compressBound(bytes.count)
        guard ZSTD_isError(bound) == 0 else {
            throw .unframeable("a message of \(bytes.count) bytes is too large for one zstd frame")
        }
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: bound))
        let written = out.withUnsafeMutableBytes { raw in
            ZSTD_compress2(context, raw.baseAddress! + start, bound, bytes.baseAddress, bytes.count)
        }
        do {
            try call(written, "ZSTD_compress2")
        } catch {
            out.removeSubrange(start...)
            throw error
        }
        out.removeSubrange((start + written)...)
    }

    private func call(_ result: Int, _ function: String) throws(OTLPWriteError) {
        if case .failure(let cause) = ZstdError.check(result, function) {
            throw OTLPWriteError(code: .compression, message: cause.description, cause: cause)
        }
    }
}
