internal import CZlib

/// Compresses into gzip members (RFC 1952). Each ``finishMember(into:)`` closes a complete member, so a file
/// cut short after it still decompresses up to that point.
final class GzipDeflater {
    private var stream = z_stream()
    private var active = false
    private let level: Int32
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    /// - Parameter level: zlib compression level, 0...9 (default 6).
    init(level: Int32 = 6) {
        self.level = level
    }

    deinit {
        if active { deflateEnd(&stream) }
    }

    /// Compresses `bytes` into the current member (starting one if needed), appending output to `out`.
    func compress(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) throws(OTLPWriteError) {
        try begin()
        try run(bytes, flush: Z_NO_FLUSH, into: &out)
    }

    /// Ends the current member (if one was started) and appends its remaining output and trailer to `out`.
    func finishMember(into out: inout [UInt8]) throws(OTLPWriteError) {
        guard active else { return }
        try run(UnsafeRawBufferPointer(start: nil, count: 0), flush: Z_FINISH, into: &out)
        deflateEnd(&stream)
        stream = z_stream()
        active = false
    }

    private func begin() throws(OTLPWriteError) {
        guard !active else { return }
        let result = CZlib_deflateInit2_gzip(&stream, level)
        guard result == Z_OK else { throw Self.failure("deflateInit2", result, stream) }
        active = true
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
