internal import CZstd

/// Decompresses a zstd stream of one or more frames (RFC 8878) from a byte source, in bounded chunks.
///
/// Skippable frames are skipped and empty frames yield nothing, as the format defines them. Faults are
/// reported with an offset in the input as stored: the input size when it ends inside a frame
/// (`zstd_truncated`), the compressed bytes consumed when the data, a checksum or a frame's magic number is
/// wrong (`zstd_corrupt`; libzstd consumes whole blocks, so the offset is the end of the block that failed).
/// Bytes decompressed before a fault are handed out first; the fault is thrown by the next read.
///
/// The limits are those of ``GzipInflater``: `maxDecompressedBytes` lets exactly that many bytes through,
/// `maxInflationRatio` checks decompressed per compressed bytes once past `ratioGraceBytes`; both end with
/// `zstd_too_large`. Memory is bounded by the window: a frame that asks for a window larger than
/// 2^`maxWindowLog` bytes (default 2^27, libzstd's own default) is refused with `zstd_too_large` before
/// anything is allocated for it.
final class ZstdDecompressor: OTLPByteSource {
    private let context: OpaquePointer
    private let input: CompressedInput
    /// Whether a frame has begun and not yet ended (libzstd's last hint was not 0).
    private var inFrame = false
    private var pendingError: OTLPReadError?
    private var setupError: OTLPReadError?
    /// Compressed bytes consumed so far.
    private(set) var fileOffset = 0
    /// Decompressed bytes produced so far.
    private(set) var totalOut = 0
    /// Frames (skippable ones included) completed so far.
    private(set) var framesCompleted = 0
    let maxDecompressedBytes: Int
    let maxInflationRatio: Int
    let ratioGraceBytes: Int

    /// The largest window accepted: 2^27 bytes (128 MiB), libzstd's default for streaming.
    static let maxWindowLog: Int32 = 27

    init(
        source: any OTLPByteSource, chunkSize: Int = 64 * 1024, maxDecompressedBytes: Int = .max, maxInflationRatio: Int = .max,
        ratioGraceBytes: Int = 16 << 20
    ) {
        self.context = ZSTD_createDCtx()
        self.input = CompressedInput(source: source, chunkSize: chunkSize)
        self.maxDecompressedBytes = maxDecompressedBytes
        self.maxInflationRatio = maxInflationRatio
        self.ratioGraceBytes = ratioGraceBytes
        if case .failure(let cause) = ZstdError.check(
            ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, Self.maxWindowLog), "ZSTD_DCtx_setParameter")
        {
            setupError = OTLPReadError(.io, cause.description, cause: cause)
        }
    }

    deinit {
        ZSTD_freeDCtx(context)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(OTLPReadError) -> Int {
        if let error = setupError ?? pendingError { throw error }
        guard buffer.count > 0 else { return 0 }
        while true {
            if input.available == 0 {
                let more = try input.refill()
                if !more && !inFrame { return 0 }  // a clean end between frames
            }
            // Never more than one byte past maxDecompressedBytes (as GzipInflater).
            let remaining = maxDecompressedBytes - totalOut
            let wanted = remaining < buffer.count ? remaining + 1 : buffer.count
            var inBuffer = ZSTD_inBuffer(src: input.bytes.baseAddress, size: input.available, pos: 0)
            var outBuffer = ZSTD_outBuffer(dst: buffer.baseAddress!, size: wanted, pos: 0)
            let result = ZSTD_decompressStream(context, &outBuffer, &inBuffer)
            let consumed = inBuffer.pos
            let produced = outBuffer.pos
            input.consume(consumed)
            fileOffset += consumed
            totalOut += produced
            if case .failure(let cause) = ZstdError.check(result, "ZSTD_decompressStream") {
                let error = dataError(cause)
                if produced > 0 { pendingError = error; return produced }
                throw error
            }
            if totalOut > maxDecompressedBytes {
                return try deliver(
                    produced, upTo: maxDecompressedBytes,
                    OTLPReadError(
                        .zstdTooLarge, "decompressed data exceeds the limit of \(maxDecompressedBytes) bytes", byteOffset: fileOffset,
                        offsetIn: .file))
            }
            if totalOut > ratioGraceBytes && totalOut / max(fileOffset, 1) > maxInflationRatio {
                return try deliver(
                    produced, upTo: ratioAllowance,
                    OTLPReadError(
                        .zstdTooLarge,
                        "\(fileOffset) compressed bytes decompressed to \(totalOut): more than the limit of \(maxInflationRatio) to 1 (a zstd bomb?)",
                        byteOffset: fileOffset, offsetIn: .file))
            }
            inFrame = result != 0
            if result == 0 && (consumed > 0 || produced > 0) { framesCompleted += 1 }
            if produced > 0 { return produced }
            if consumed == 0 && input.isFull {
                // libzstd took nothing from a full buffer and gave nothing: not expected of it, but never loop.
                throw OTLPReadError(.io, "libzstd made no progress", byteOffset: fileOffset, offsetIn: .file)
            }
            if consumed == 0 && input.available == 0 && input.sourceEnded {
                // Nothing more can come: the input ended inside a frame.
                throw OTLPReadError(.zstdTruncated, "the input ends inside a zstd frame", byteOffset: fileOffset, offsetIn: .file)
            }
        }
    }

    /// As ``GzipInflater``: the most output the ratio check lets through at the current offset.
    private var ratioAllowance: Int {
        let (bound, overflow) = (maxInflationRatio &+ 1).multipliedReportingOverflow(by: max(fileOffset, 1))
        return max(ratioGraceBytes, overflow || maxInflationRatio == .max ? .max : bound - 1)
    }

    private func deliver(_ produced: Int, upTo allowed: Int, _ error: OTLPReadError) throws(OTLPReadError) -> Int {
        pendingError = error
        let within = produced - (totalOut - allowed)
        if within > 0 { return within }
        throw error
    }

    /// The read error for a libzstd error met while decompressing.
    private func dataError(_ cause: ZstdError) -> OTLPReadError {
        switch cause.kind {
        case .notAFrame:
            OTLPReadError(
                .zstdCorrupt, "bytes that do not start a zstd frame (\(cause.errorName))", byteOffset: fileOffset, offsetIn: .file,
                cause: cause)
        case .corrupt:
            OTLPReadError(.zstdCorrupt, "invalid zstd frame (\(cause.errorName))", byteOffset: fileOffset, offsetIn: .file, cause: cause)
        case .tooLarge:
            OTLPReadError(
                .zstdTooLarge, "a zstd frame needs a window larger than 2^\(Self.maxWindowLog) bytes (\(cause.errorName))",
                byteOffset: fileOffset, offsetIn: .file, cause: cause)
        case .failure:
            OTLPReadError(.io, cause.description, cause: cause)
        }
    }
}
