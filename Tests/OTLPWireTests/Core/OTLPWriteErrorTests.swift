import Testing
@testable import OTLPWire

#if canImport(Glibc)
import Glibc
#endif

@Suite("OTLPWriteError")
struct OTLPWriteErrorTests {
    @Test("each kind of error prints as before, and a system error keeps its errno")
    func descriptions() {
        #expect(OTLPWriteError.io("no sink").description == "write failed: no sink")
        #expect(
            OTLPWriteError.compression("zlib deflate failed with code -2").description
                == "compression failed: zlib deflate failed with code -2")
        #expect(OTLPWriteError.unframeable("too long").description == "record cannot be framed: too long")
        let full = OTLPWriteError.system("cannot write out.bin", errno: ENOSPC)
        #expect(full.description == "write failed: cannot write out.bin: No space left on device")
        #expect(full.code == .system && full.errno == ENOSPC && full.message == "cannot write out.bin")
        #expect((full.cause as? SystemCallError) == SystemCallError(errno: ENOSPC))
        #expect(OTLPWriteError.io("x").errno == nil && OTLPWriteError.io("x").cause == nil)
    }

    @Test("codes are distinct and print machine-readable names")
    func codes() {
        let codes: [OTLPWriteError.Code] = [.io, .system, .compression, .unframeable]
        #expect(codes.map(\.description) == ["io", "system", "compression", "unframeable"])
        #expect(Set(codes).count == 4)
        #expect(OTLPWriteError.io("x").code == .io && OTLPWriteError.unframeable("x").code == .unframeable)
    }

    @Test("an error made from its parts equals the one the factory makes; errno and message take part in equality")
    func equality() {
        #expect(OTLPWriteError(code: .system, message: "m", cause: SystemCallError(errno: EPIPE)) == .system("m", errno: EPIPE))
        #expect(OTLPWriteError.system("m", errno: EPIPE) != .system("m", errno: ENOSPC))
        #expect(OTLPWriteError.system("m", errno: EPIPE) != .system("n", errno: EPIPE))
        #expect(OTLPWriteError.io("m") != .compression("m"))
        #expect(OTLPWriteError(code: .io, message: "m") == .io("m"))
    }

    @Test("a deflate failure is classified by zlib's return code, kept as the cause, with the message as before")
    func deflateFailureKeepsReturnCode() {
        // zlib refuses levels outside -1...9 with Z_STREAM_ERROR (the compressor of Apple platforms; Linux's is
        // libdeflate, below).
        var out: [UInt8] = []
        guard let error = Self.compressionFailure(GzipDeflater(compressor: ZlibGzipCompressor(level: 42)), into: &out) else {
            return
        }
        do {
            #expect(error.code == .compression)
            #expect(error.description == "compression failed: zlib deflateInit2 failed with code -2")
            let cause = error.cause as? ZlibError
            #expect(cause?.returnCode == -2 && cause?.function == "deflateInit2", "\(String(describing: error.cause))")
            #expect(cause?.description.hasPrefix("zlib deflateInit2 returned Z_STREAM_ERROR (-2)") == true)
        }
    }

    #if os(Linux)
    @Test("a libdeflate failure (a level it refuses) is a compression error naming the function and the level")
    func libdeflateFailureNamesFunction() {
        var out: [UInt8] = []
        // libdeflate accepts 0...12: no compressor for 42
        guard let error = Self.compressionFailure(GzipDeflater(level: 42), into: &out) else { return }
        #expect(error.code == .compression)
        #expect(error.message.hasPrefix("libdeflate libdeflate_alloc_compressor failed: level 42"), "\(error.message)")
        let cause = error.cause as? LibdeflateError
        #expect(cause?.function == "libdeflate_alloc_compressor", "\(String(describing: error.cause))")
        #expect(out.isEmpty)
    }
    #endif

    /// The error `deflater` (made with level 42) throws compressing three bytes into `out`; `nil`, with the
    /// issue recorded, when it compressed them.
    private static func compressionFailure(
        _ deflater: GzipDeflater, into out: inout [UInt8], sourceLocation: SourceLocation = #_sourceLocation
    ) -> OTLPWriteError? {
        let result = [UInt8]([1, 2, 3]).withUnsafeBytes { bytes in
            Result { () throws(OTLPWriteError) in try deflater.compress(bytes, into: &out) }
        }
        guard case .failure(let error) = result else {
            Issue.record("compressed with level 42", sourceLocation: sourceLocation)
            return nil
        }
        return error
    }
}
