#if canImport(CLibdeflate)
/// The cause of an error from libdeflate: the function that failed and why. libdeflate reports failures by a
/// NULL compressor (a level outside 0...12, or no memory) or a compressed size of 0 (the output did not fit).
struct LibdeflateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The libdeflate function that failed (`libdeflate_alloc_compressor`, `libdeflate_gzip_compress`).
    var function: String
    /// What it was asked: the level, or the input and output sizes.
    var detail: String

    init(_ function: String, detail: String) {
        self.function = function
        self.detail = detail
    }

    /// `libdeflate libdeflate_gzip_compress returned 0 (1024 bytes in, 16 bytes of room)`.
    var description: String { "libdeflate \(function) failed (\(detail))" }

    /// The write error for this failure, classified as ``OTLPWriteError/Code/compression``.
    var writeError: OTLPWriteError {
        OTLPWriteError(code: .compression, message: "libdeflate \(function) failed: \(detail)", cause: self)
    }
}
#endif
