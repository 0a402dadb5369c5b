internal import CZlib

/// Gzip members from zlib: the compressor where libdeflate is not available (Apple platforms). One stream,
/// initialized for this level once and reset for every member, ended with this object.
final class ZlibGzipCompressor: GzipMemberCompressor {
    let level: Int32
    private var stream = z_stream()
    private var initialized = false
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    /// Bytes handed to zlib per call: its `avail_in` is 32 bits wide.
    static let chunkBytes = 1 << 30

    /// - Parameter level: zlib level, 0...9.
    init(level: Int32) {
        self.level = level
    }

    deinit {
        if initialized { deflateEnd(&stream) }
    }

    func prepare() throws(OTLPWriteError) {
        guard !initialized else { return }
        let result = CZlib_deflateInit2_gzip(&stream, level)
        guard result == Z_OK else { throw Self.failure("deflateInit2", result, stream) }
        initialized = true
    }

    func compressMember(_ input: UnsafeRawBufferPointer, into out: inout [UInt8]) throws(OTLPWriteError) {
        try prepare()
        let reset = deflateReset(&stream)
        guard reset == Z_OK else { throw Self.failure("deflateReset", reset, stream) }
        var start = 0
        repeat {
            let end = min(start + Self.chunkBytes, input.count)
            try run(UnsafeRawBufferPointer(rebasing: input[start..<end]), flush: end == input.count ? Z_FINISH : Z_NO_FLUSH, into: &out)
            start = end
        } while start < input.count
    }

    private func run(_ bytes: UnsafeRawBufferPointer, flush: Int32, into out: inout [UInt8]) throws(OTLPWriteError) {
        stream.next_in = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = UInt32(bytes.count)
        while true {
            let (result, produced): (Int32, Int) = scratch.withUnsafeMutableBytes { scratch in
                stream.next_out = scratch.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = UInt32(scratch.count)
                let result = deflate(&stream, flush)
                return (result, scratch.count - Int(stream.avail_out))
            }
            out.append(contentsOf: scratch[0..<produced])
            switch result {
            case Z_STREAM_END where flush == Z_FINISH:
                return
            case Z_OK, Z_BUF_ERROR:
                // Z_BUF_ERROR: no progress was possible in this call, which is not fatal (zlib.h).
                if flush != Z_FINISH && stream.avail_in == 0 && produced < scratch.count { return }
            default:
                // Z_STREAM_ERROR (an inconsistent stream), or any code deflate is not documented to return.
                throw Self.failure("deflate", result, stream)
            }
        }
    }

    /// The error for a zlib failure: the message names the function and its return code, kept in the cause.
    private static func failure(_ function: String, _ result: Int32, _ stream: z_stream) -> OTLPWriteError {
        let cause = ZlibError(function, returnCode: result, zlibMessage: stream.msg.map { String(cString: $0) })
        return OTLPWriteError(code: .compression, message: "zlib \(function) failed with code \(result)", cause: cause)
    }
}
