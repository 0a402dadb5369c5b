import Testing
@testable import OTLPWire

/// The size limits end the stream like a fault in the data: the bytes within the limit are handed out first,
/// then `gzip_too_large`, whatever buffer size the caller reads with.
@Suite("GzipInflater limits")
struct GzipInflaterLimitTests {
    /// Everything the inflater gives through a `bufferSize`-byte buffer, then the error that stopped it, and
    /// whether the read after the error throws it again.
    static func inflate(_ inflater: GzipInflater, bufferSize: Int) -> (out: [UInt8], error: OTLPReadError?, repeated: Bool) {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: bufferSize)
        func read() -> Result<Int, OTLPReadError> {
            buffer.withUnsafeMutableBytes { raw in Result { () throws(OTLPReadError) in try inflater.read(into: raw) } }
        }
        while true {
            switch read() {
            case .success(0): return (out, nil, false)
            case .success(let count): out += buffer[0..<count]
            case .failure(let error):
                guard case .failure(let again) = read() else { return (out, error, false) }
                return (out, error, again.code == error.code && again.byteOffset == error.byteOffset)
            }
        }
    }

    @Test(
        "maxDecompressedBytes: exactly the bytes within the limit are handed out, then gzip_too_large, any buffer size, one member or several",
        arguments: [1000, 64 * 1024, 1 << 20])
    func decompressedBytesLimit(bufferSize: Int) throws {
        let content = GzipInflaterFaultTests.content(300_000)
        let single = try GzipInflaterFaultTests.member(content)
        let multi = try GzipInflaterFaultTests.member(Array(content[..<90_000])) + GzipInflaterFaultTests.member(Array(content[90_000...]))
        for (bytes, limit) in [(single, 100_000), (multi, 100_000), (single, 1), (multi, 90_000)] {
            let outcome = Self.inflate(GzipInflater(source: OTLPMemorySource(bytes), maxDecompressedBytes: limit), bufferSize: bufferSize)
            #expect(outcome.out == Array(content[..<limit]), "limit \(limit), \(bytes.count) bytes: \(outcome.out.count) handed out")
            #expect(outcome.error?.code == .gzipTooLarge)
            #expect(outcome.error?.message == "decompressed data exceeds the limit of \(limit) bytes")
            #expect(outcome.error?.offsetIn == .file && (1...bytes.count).contains(outcome.error?.byteOffset ?? -1))
            #expect(outcome.repeated, "the stream ends at the limit")
        }
        // Content of exactly the limit is not over it.
        let exact = Self.inflate(GzipInflater(source: OTLPMemorySource(multi), maxDecompressedBytes: content.count), bufferSize: bufferSize)
        #expect(exact.out == content && exact.error == nil)
    }

    @Test(
        "maxInflationRatio: the bytes the ratio allows at the offset where it tripped are handed out, then gzip_too_large, any buffer size",
        arguments: [1000, 64 * 1024, 1 << 20])
    func inflationRatioLimit(bufferSize: Int) throws {
        // Zeros compress about 1,000 to 1; a little noise first so the grace bytes are not all one run.
        let content = GzipInflaterFaultTests.content(20_000) + [UInt8](repeating: 0, count: 2_000_000)
        let bytes = try GzipInflaterFaultTests.member(content)
        let (ratio, grace) = (10, 50_000)
        let outcome = Self.inflate(
            GzipInflater(source: OTLPMemorySource(bytes), maxInflationRatio: ratio, ratioGraceBytes: grace), bufferSize: bufferSize)
        let error = try #require(outcome.error)
        #expect(error.code == .gzipTooLarge)
        #expect(error.message.hasPrefix("\(error.byteOffset!) compressed bytes inflated to "))
        #expect(error.message.hasSuffix(": more than the limit of \(ratio) to 1 (a gzip bomb?)"))
        #expect(error.offsetIn == .file && (1...bytes.count).contains(error.byteOffset!))
        // Handed out: the longest prefix that passes the check at that offset (past the grace bytes).
        #expect(outcome.out.count == max(grace, (ratio + 1) * error.byteOffset! - 1), "\(outcome.out.count) at offset \(error.byteOffset!)")
        #expect(outcome.out.count >= grace && outcome.out == Array(content[..<outcome.out.count]))
        #expect(outcome.repeated, "the stream ends at the limit")
    }
}
