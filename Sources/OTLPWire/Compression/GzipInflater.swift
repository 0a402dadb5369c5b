internal import CZlib

/// Decompresses a gzip stream of one or more members (RFC 1952) from a byte source, in bounded chunks.
///
/// Faults are reported with the error classes of the test vectors and an offset in the file as stored:
/// the file size when it ends inside a member, the CRC-32 or ISIZE field on a mismatch, the first byte that
/// should have started a member. Bytes decompressed before a fault are handed out first; the fault is
/// thrown by the next read.
final class GzipInflater: OTLPByteSource {
    private let source: any OTLPByteSource
    private var stream = z_stream()
    private var initialized = false
    private let input: UnsafeMutableRawBufferPointer
    private var inputStart = 0
    private var inputEnd = 0
    private var sourceEnded = false
    private var betweenMembers = true
    private var pendingError: OTLPReadError?
    /// Compressed bytes consumed so far.
    private(set) var fileOffset = 0
    /// Decompressed bytes produced so far.
    private(set) var totalOut = 0
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
        self.source = source
        self.input = .allocate(byteCount: chunkSize, alignment: 16)
        self.maxDecompressedBytes = maxDecompressedBytes
        self.maxInflationRatio = maxInflationRatio
        self.ratioGraceBytes = ratioGraceBytes
    }

    deinit {
        if initialized { inflateEnd(&stream) }
        input.deallocate()
    }

    private var available: Int { inputEnd - inputStart }

    /// Reads more compressed input, keeping unconsumed bytes. Returns false at the end of the source.
    private func refill() throws(OTLPReadError) -> Bool {
        if sourceEnded { return false }
        if inputStart > 0 {
            if available > 0 { input.baseAddress!.copyMemory(from: input.baseAddress! + inputStart, byteCount: available) }
            inputEnd = available
            inputStart = 0
        }
        guard inputEnd < input.count else { return true }
        let count = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: input[inputEnd...]))
        if count == 0 { sourceEnded = true; return false }
        inputEnd += count
        return true
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(OTLPReadError) -> Int {
        if let error = pendingError { throw error }
        while true {
            if betweenMembers {
                while available < 2 {
                    if try !refill() { break }
                }
                if available == 0 { return 0 }  // clean end after the last member
                let bytes = input.baseAddress!.assumingMemoryBound(to: UInt8.self) + inputStart
                guard available >= 2, bytes[0] == 0x1F, bytes[1] == 0x8B else {
                    throw OTLPReadError(.gzipBadHeader, "bytes that do not start a gzip member", byteOffset: fileOffset, offsetIn: .file)
                }
                try startMember()
            }
            if available == 0, try !refill() {
                throw OTLPReadError(.gzipTruncated, "the file ends inside a gzip member", byteOffset: fileOffset, offsetIn: .file)
            }
            stream.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self) + inputStart
            stream.avail_in = UInt32(available)
            stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = UInt32(min(buffer.count, Int(UInt32.max)))
            let result = inflate(&stream, Z_NO_FLUSH)
            let consumed = available - Int(stream.avail_in)
            let produced = buffer.count - Int(stream.avail_out)
            inputStart += consumed
            fileOffset += consumed
            totalOut += produced
            if totalOut > maxDecompressedBytes {
                throw OTLPReadError(
                    .gzipTooLarge, "decompressed data exceeds the limit of \(maxDecompressedBytes) bytes",
                    byteOffset: fileOffset, offsetIn: .file)
            }
            if totalOut > ratioGraceBytes && totalOut / max(fileOffset, 1) > maxInflationRatio {
                throw OTLPReadError(
                    .gzipTooLarge,
                    "\(fileOffset) compressed bytes inflated to \(totalOut): more than the limit of \(maxInflationRatio) to 1 (a gzip bomb?)",
                    byteOffset: fileOffset, offsetIn: .file)
            }
            switch result {
            case Z_STREAM_END:
                betweenMembers = true
                if produced > 0 { return produced }
            case Z_OK, Z_BUF_ERROR:
                if produced > 0 { return produced }
            case Z_DATA_ERROR:
                let error = dataError()
                if produced > 0 { pendingError = error; return produced }
                throw error
            default:
                throw OTLPReadError(.io, "zlib inflate failed with code \(result)")
            }
        }
    }

    private func startMember() throws(OTLPReadError) {
        let result = initialized ? inflateReset(&stream) : CZlib_inflateInit2_gzip(&stream)
        guard result == Z_OK else { throw OTLPReadError(.io, "zlib could not start inflating (code \(result))") }
        initialized = true
        betweenMembers = false
    }

    private func dataError() -> OTLPReadError {
        let message = stream.msg.map { String(cString: $0) } ?? "invalid compressed data"
        switch message {
        case "incorrect data check":
            return OTLPReadError(.gzipCRCMismatch, "gzip member's CRC-32 does not match its content", byteOffset: fileOffset - 4, offsetIn: .file)
        case "incorrect length check":
            return OTLPReadError(.gzipSizeMismatch, "gzip member's ISIZE does not match its content length", byteOffset: fileOffset - 4, offsetIn: .file)
        case "incorrect header check", "unknown compression method", "unknown header flags set", "header crc mismatch":
            return OTLPReadError(.gzipBadHeader, "invalid gzip member header (\(message))", byteOffset: fileOffset, offsetIn: .file)
        default:
            return OTLPReadError(.gzipCorrupt, "invalid compressed data (\(message))", byteOffset: fileOffset, offsetIn: .file)
        }
    }
}
