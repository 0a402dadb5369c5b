import Testing
@testable import OTLPWire

/// zlib reports every fault in gzip data as `Z_DATA_ERROR`; the inflater classifies it by where in the member
/// zlib was (header, deflate data, trailer) and by comparing the trailer with what was inflated, never by
/// zlib's message, which only appears in the printed text as before.
@Suite("GzipInflater faults")
struct GzipInflaterFaultTests {
    /// A content of `count` bytes that compresses into several deflate blocks at level 6.
    static func content(_ count: Int) -> [UInt8] {
        var state: UInt32 = 12345
        return (0..<count).map { index in
            state = state &* 1_103_515_245 &+ 12345
            return index % 3 == 0 ? UInt8(truncatingIfNeeded: state >> 16) : UInt8(index % 7)
        }
    }

    static func member(_ content: [UInt8], level: Int32 = 6) throws -> [UInt8] {
        let deflater = GzipDeflater(level: level)
        var out: [UInt8] = []
        try content.withUnsafeBytes { try deflater.compress($0, into: &out) }
        try deflater.finishMember(into: &out)
        return out
    }

    /// Everything the inflater gives, then the error that stopped it (`nil` at a clean end).
    static func inflate(_ bytes: [UInt8], chunkSize: Int = 64 * 1024) -> (out: [UInt8], error: OTLPReadError?) {
        let inflater = GzipInflater(source: OTLPMemorySource(bytes), chunkSize: chunkSize)
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1000)
        while true {
            let result = buffer.withUnsafeMutableBytes { raw in Result { () throws(OTLPReadError) in try inflater.read(into: raw) } }
            switch result {
            case .success(0): return (out, nil)
            case .success(let count): out += buffer[0..<count]
            case .failure(let error): return (out, error)
            }
        }
    }

    static func zlibCode(_ error: OTLPReadError?) -> Int32? { (error?.cause as? ZlibError)?.returnCode }

    static let zDataError: Int32 = -3

    @Test("an intact member inflates to its content, whatever the chunk size", arguments: [3, 7, 64 * 1024])
    func intact(chunkSize: Int) throws {
        let content = Self.content(200_000)
        let outcome = Self.inflate(try Self.member(content) + Self.member(content, level: 0), chunkSize: chunkSize)
        #expect(outcome.error == nil)
        #expect(outcome.out == content + content)
    }

    @Test(
        "a wrong CRC-32 is gzip_crc_mismatch at the CRC field, for compressed and stored data, any chunk size",
        arguments: [(6, 3), (6, 64 * 1024), (0, 5), (0, 64 * 1024)] as [(Int32, Int)])
    func crcMismatch(level: Int32, chunkSize: Int) throws {
        let content = Self.content(100_000)
        var bytes = try Self.member(content, level: level)
        bytes[bytes.count - 8] ^= 0x01
        let outcome = Self.inflate(bytes, chunkSize: chunkSize)
        #expect(outcome.out == content)
        #expect(outcome.error?.code == .gzipCRCMismatch)
        #expect(outcome.error?.message == "gzip member's CRC-32 does not match its content")
        #expect(outcome.error?.byteOffset == bytes.count - 8 && outcome.error?.offsetIn == .file)
        #expect(Self.zlibCode(outcome.error) == Self.zDataError)
    }

    @Test("a wrong ISIZE is gzip_size_mismatch at the ISIZE field, in a later member too, any chunk size", arguments: [3, 64 * 1024])
    func sizeMismatch(chunkSize: Int) throws {
        let content = Self.content(50_000)
        let first = try Self.member(content)
        var second = try Self.member(content)
        second[second.count - 1] ^= 0x80
        let outcome = Self.inflate(first + second, chunkSize: chunkSize)
        #expect(outcome.out == content + content)
        #expect(outcome.error?.code == .gzipSizeMismatch)
        #expect(outcome.error?.message == "gzip member's ISIZE does not match its content length")
        #expect(outcome.error?.byteOffset == first.count + second.count - 4)
        #expect(Self.zlibCode(outcome.error) == Self.zDataError)
    }

    @Test("header faults that zlib finds are gzip_bad_header, with zlib's words as before")
    func badHeader() throws {
        let good = try Self.member(Self.content(1000))
        var method = good
        method[2] = 7  // CM: not deflate
        var flags = good
        flags[3] = 0xE0  // reserved FLG bits
        var headerCRC = good
        headerCRC[3] = 0x02  // FHCRC: a header CRC-16 follows the fixed header; this one is wrong
        headerCRC.insert(contentsOf: [0x00, 0x00], at: 10)
        for (bytes, words) in [
            (method, "unknown compression method"), (flags, "unknown header flags set"), (headerCRC, "header crc mismatch"),
        ] {
            let outcome = Self.inflate(bytes)
            #expect(outcome.out.isEmpty)
            #expect(outcome.error?.code == .gzipBadHeader, "\(words): \(String(describing: outcome.error))")
            #expect(outcome.error?.message == "invalid gzip member header (\(words))")
            #expect(Self.zlibCode(outcome.error) == Self.zDataError)
        }
    }

    @Test("invalid deflate data is gzip_corrupt, also in the last block before the trailer")
    func corrupt() throws {
        var bytes = try Self.member(Self.content(1000))
        bytes[10] |= 0x06  // BTYPE 11: a reserved block type
        let outcome = Self.inflate(bytes)
        #expect(outcome.error?.code == .gzipCorrupt)
        #expect(outcome.error?.message == "invalid compressed data (invalid block type)")
        #expect(outcome.error?.byteOffset == 11)
        #expect(Self.zlibCode(outcome.error) == Self.zDataError)

        // A stored last block whose length and its complement disagree.
        var stored = try Self.member(Self.content(100), level: 0)
        stored[11] ^= 0xFF
        let storedOutcome = Self.inflate(stored)
        #expect(storedOutcome.error?.code == .gzipCorrupt)
        #expect(storedOutcome.error?.message == "invalid compressed data (invalid stored block lengths)")
    }
}
