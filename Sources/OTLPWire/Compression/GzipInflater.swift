internal import CZlib

/// Decompresses a gzip stream of one or more members (RFC 1952) from a byte source, in bounded chunks.
///
/// Faults are reported with the error classes of the test vectors and an offset in the file as stored:
/// the file size when it ends inside a member, the CRC-32 or ISIZE field on a mismatch, the first byte that
/// should have started a member. Bytes decompressed before a fault are handed out first; the fault is
/// thrown by the next read.
///
/// The two size limits work the same way: the bytes within the limit are handed out, then the limit's
/// `gzip_too_large` error is thrown, at the file offset reached when the limit was passed. For
/// `maxDecompressedBytes` that is exactly the first `maxDecompressedBytes` bytes (inflate is never asked for
/// more than one byte past the limit). For `maxInflationRatio`, which depends on the compressed bytes consumed,
/// it is the longest output the check lets through at that offset: `max(ratioGraceBytes,
/// (maxInflationRatio + 1) × offset − 1)` bytes (more output is refused, whatever the caller's buffer size).
///
/// zlib reports every fault in its data as `Z_DATA_ERROR`; the class comes from where the member was when it
/// failed, never from zlib's message: in its header (zlib's `gz_header.done` is not yet set), in its deflate
/// data, or in its trailer (past the end of the last deflate block, which `Z_BLOCK` makes inflate stop at),
/// where the stored CRC-32 and ISIZE are compared with what was inflated.
final class GzipInflater: OTLPByteSource {
    private var stream = z_stream()
    private var initialized = false
    private let input: CompressedInput
    private var betweenMembers = true
    private var pendingError: OTLPReadError?
    /// What zlib reports of the current member's header (only `done` is read: the optional fields are not
    /// kept, their pointers stay `nil`).
    private let header: UnsafeMutablePointer<gz_header>
    /// The file offset of the current member's trailer, once its last deflate block has ended.
    private var trailerOffset: Int?
    /// The current member's trailer bytes consumed so far (CRC-32 then ISIZE, little-endian), at most 8.
    private var trailer: [UInt8] = []
    /// Compressed bytes consumed so far.
    private(set) var fileOffset = 0
    /// Decompressed bytes produced so far.
    private(set) var totalOut = 0
    /// Gzip members begun so far.
    private(set) var membersStarted = 0
    /// Stops input that inflates to more than this many bytes.
    let maxDecompressedBytes: Int
    /// Stops a "gzip bomb": more than this many decompressed bytes per compressed byte, once past
    /// `ratioGraceBytes` of output (small inputs may legitimately compress very well).
    let maxInflationRatio: Int
    let ratioGraceBytes: Int

    init(
        source: any OTLPByteSource, chunkSize: Int = 64 * 1024, maxDecompressedBytes: Int = .max, maxInflationRatio: Int = .max,
        ratioGraceBytes: Int = 16 << 20
    ) {
        self.input = CompressedInput(source: source, chunkSize: chunkSize)
        self.header = .allocate(capacity: 1)
        self.header.initialize(to: gz_header())
        self.maxDecompressedBytes = maxDecompressedBytes
        self.maxInflationRatio = maxInflationRatio
        self.ratioGraceBytes = ratioGraceBytes
    }

    deinit {
        if initialized { inflateEnd(&stream) }
        header.deallocate()
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(OTLPReadError) -> Int {
        if let error = pendingError { throw error }
        while true {
            if betweenMembers {
                while input.available < 2 {
                    if try !input.refill() { break }
                }
                if input.available == 0 { return 0 }  // clean end after the last member
                guard OTLPGzip.isCompressed(input.bytes) else {
                    throw OTLPReadError(.gzipBadHeader, "bytes that do not start a gzip member", byteOffset: fileOffset, offsetIn: .file)
                }
                try startMember()
            }
            if input.available == 0, try !input.refill() {
                throw OTLPReadError(.gzipTruncated, "the file ends inside a gzip member", byteOffset: fileOffset, offsetIn: .file)
            }
            stream.next_in = UnsafeMutablePointer(mutating: input.bytes.baseAddress!.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = UInt32(input.available)
            // Never more than one byte past maxDecompressedBytes: enough to see that the limit is passed, and
            // the fault's offset is where it was passed, whatever the caller's buffer size.
            let remaining = maxDecompressedBytes - totalOut  // >= 0: passing the limit ends the stream
            let wanted = remaining < buffer.count ? remaining + 1 : buffer.count
            stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = UInt32(min(wanted, Int(UInt32.max)))
            // Z_BLOCK: stop at the end of each deflate block, so the end of the last one is seen.
            let result = inflate(&stream, Z_BLOCK)
            let consumed = input.available - Int(stream.avail_in)
            let produced = wanted - Int(stream.avail_out)
            if trailerOffset != nil, trailer.count < 8 {
                trailer += UnsafeRawBufferPointer(rebasing: input.bytes[..<min(consumed, 8 - trailer.count)])
            }
            input.consume(consumed)
            fileOffset += consumed
            totalOut += produced
            if totalOut > maxDecompressedBytes {
                return try deliver(
                    produced, upTo: maxDecompressedBytes,
                    OTLPReadError(
                        .gzipTooLarge, "decompressed data exceeds the limit of \(maxDecompressedBytes) bytes",
                        byteOffset: fileOffset, offsetIn: .file))
            }
            if totalOut > ratioGraceBytes && totalOut / max(fileOffset, 1) > maxInflationRatio {
                return try deliver(
                    produced, upTo: ratioAllowance,
                    OTLPReadError(
                        .gzipTooLarge,
                        "\(fileOffset) compressed bytes inflated to \(totalOut): more than the limit of \(maxInflationRatio) to 1 (a gzip bomb?)",
                        byteOffset: fileOffset, offsetIn: .file))
            }
            switch result {
            case Z_STREAM_END:
                betweenMembers = true
                if produced > 0 { return produced }
            case Z_OK, Z_BUF_ERROR:
                // zlib.h: data_type has 128 set right after an end-of-block code, 64 while in the last block.
                if trailerOffset == nil, stream.data_type & 192 == 192 { trailerOffset = fileOffset }
                if produced > 0 { return produced }
            case Z_DATA_ERROR:
                let error = dataError()
                if produced > 0 { pendingError = error; return produced }
                throw error
            default:
                // Z_MEM_ERROR, Z_STREAM_ERROR, Z_NEED_DICT: not a fault in the data.
                throw OTLPReadError(.io, "zlib inflate failed with code \(result)", cause: zlibError("inflate", result))
            }
        }
    }

    /// The most decompressed bytes the inflation ratio check lets through at the current file offset:
    /// `totalOut / max(fileOffset, 1) > maxInflationRatio` is false up to `(maxInflationRatio + 1) × offset − 1`.
    private var ratioAllowance: Int {
        let (bound, overflow) = (maxInflationRatio &+ 1).multipliedReportingOverflow(by: max(fileOffset, 1))
        return max(ratioGraceBytes, overflow || maxInflationRatio == .max ? .max : bound - 1)
    }

    /// A limit was passed by the last `produced` bytes, which brought `totalOut` past `allowed`: hands out the
    /// bytes within it (error kept for the next read), or throws `error` when there are none. The earlier output
    /// was within the limit (the limits only grow with the input), so at least the part up to it is new.
    private func deliver(_ produced: Int, upTo allowed: Int, _ error: OTLPReadError) throws(OTLPReadError) -> Int {
        pendingError = error
        let within = produced - (totalOut - allowed)
        if within > 0 { return within }
        throw error
    }

    private func startMember() throws(OTLPReadError) {
        let function = initialized ? "inflateReset" : "inflateInit2"
        var result = initialized ? inflateReset(&stream) : CZlib_inflateInit2_gzip(&stream)
        if result == Z_OK {
            initialized = true
            header.pointee = gz_header()
            result = inflateGetHeader(&stream, header)
        }
        guard result == Z_OK else {
            throw OTLPReadError(.io, "zlib could not start inflating (code \(result))", cause: zlibError(function, result))
        }
        betweenMembers = false
        membersStarted += 1
        trailerOffset = nil
        trailer.removeAll(keepingCapacity: true)
    }

    private func zlibError(_ function: String, _ result: Int32) -> ZlibError {
        ZlibError(function, returnCode: result, zlibMessage: stream.msg.map { String(cString: $0) })
    }

    /// A little-endian 32-bit field of the trailer.
    private func trailerField(at index: Int) -> UInt32 {
        trailer[index..<index + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The fault behind a `Z_DATA_ERROR`, from where in the member zlib was (see the type's discussion).
    private func dataError() -> OTLPReadError {
        let cause = zlibError("inflate", Z_DATA_ERROR)
        let message = cause.zlibMessage ?? "invalid compressed data"
        if header.pointee.done != 1 {  // 1: the header was read completely
            return OTLPReadError(
                .gzipBadHeader, "invalid gzip member header (\(message))", byteOffset: fileOffset, offsetIn: .file, cause: cause)
        }
        if let trailerOffset {
            if trailer.count >= 4, trailerField(at: 0) != UInt32(truncatingIfNeeded: stream.adler) {
                return OTLPReadError(
                    .gzipCRCMismatch, "gzip member's CRC-32 does not match its content", byteOffset: trailerOffset, offsetIn: .file,
                    cause: cause)
            }
            if trailer.count == 8, trailerField(at: 4) != UInt32(truncatingIfNeeded: stream.total_out) {
                return OTLPReadError(
                    .gzipSizeMismatch, "gzip member's ISIZE does not match its content length", byteOffset: trailerOffset + 4,
                    offsetIn: .file, cause: cause)
            }
        }
        return OTLPReadError(.gzipCorrupt, "invalid compressed data (\(message))", byteOffset: fileOffset, offsetIn: .file, cause: cause)
    }
}
