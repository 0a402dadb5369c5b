import Testing
@testable import OTLPWire

/// The zstd stream decompressor: frames of every kind the format defines, faults located in the input as
/// stored, the limits of the gzip reader.
@Suite("ZstdDecompressor")
struct ZstdDecompressorTests {
    static let content = GzipInflaterFaultTests.content

    static func frame(_ content: [UInt8]) throws -> [UInt8] {
        try content.withUnsafeBytes { try OTLPZstd.compress($0) }
    }

    /// A skippable frame (RFC 8878 section 3.1.2) of `count` bytes of user data.
    static func skippable(_ count: Int, variant: UInt8 = 0x5A) -> [UInt8] {
        [variant, 0x2A, 0x4D, 0x18] + withUnsafeBytes(of: UInt32(count).littleEndian, Array.init) + [UInt8](repeating: 0xEE, count: count)
    }

    /// Everything the decompressor gives, then the error that stopped it (`nil` at a clean end).
    static func decompress(
        _ bytes: [UInt8], chunkSize: Int = 64 * 1024, maxDecompressedBytes: Int = .max, maxInflationRatio: Int = .max,
        ratioGraceBytes: Int = 16 << 20
    ) -> (out: [UInt8], error: OTLPReadError?) {
        let decompressor = ZstdDecompressor(
            source: OTLPMemorySource(bytes), chunkSize: chunkSize, maxDecompressedBytes: maxDecompressedBytes,
            maxInflationRatio: maxInflationRatio, ratioGraceBytes: ratioGraceBytes)
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1000)
        while true {
            let result = buffer.withUnsafeMutableBytes { raw in Result { () throws(OTLPReadError) in try decompressor.read(into: raw) } }
            switch result {
            case .success(0): return (out, nil)
            case .success(let count): out += buffer[0..<count]
            case .failure(let error): return (out, error)
            }
        }
    }

    @Test("frames, skippable frames and empty frames decompress to the content, whatever the chunk size", arguments: [1, 7, 64 * 1024])
    func intact(chunkSize: Int) throws {
        let content = Self.content(200_000)
        let bytes = try Self.skippable(10) + Self.frame(content) + Self.frame([]) + Self.skippable(0, variant: 0x50) + Self.frame(content)
        let outcome = Self.decompress(bytes, chunkSize: chunkSize)
        #expect(outcome.error == nil)
        #expect(outcome.out == content + content)
    }

    @Test("an empty input is an empty stream")
    func emptyInput() {
        let outcome = Self.decompress([])
        #expect(outcome.error == nil)
        #expect(outcome.out.isEmpty)
    }

    @Test("a stream cut inside a frame is zstd_truncated at the input's end, after the content before it", arguments: [1, 9, 500, 3000])
    func cut(droppedBytes: Int) throws {
        let first = try Self.frame(Self.content(50_000))
        let second = try Self.frame(Self.content(40_000))
        let bytes = Array((first + second).dropLast(droppedBytes))
        let outcome = Self.decompress(bytes)
        #expect(outcome.error?.code == .zstdTruncated)
        #expect(outcome.error?.byteOffset == bytes.count)
        #expect(outcome.error?.offsetIn == .file)
        #expect(outcome.out.starts(with: Self.content(50_000)))
        #expect(outcome.out.count <= 90_000)
    }

    @Test("a flipped byte inside a frame is zstd_corrupt (checksum or data), located in the file, never a crash")
    func flipped() throws {
        let first = try Self.frame(Self.content(30_000))
        let second = try Self.frame(Self.content(30_000))
        for position in stride(from: first.count + 6, to: first.count + second.count, by: max(1, second.count / 40)) {
            var bytes = first + second
            bytes[position] ^= 0x5A
            let outcome = Self.decompress(bytes)
            #expect([OTLPReadError.Code.zstdCorrupt, .zstdTruncated, .zstdTooLarge].contains(outcome.error?.code), "byte \(position)")
            #expect(outcome.error.map { $0.byteOffset! >= first.count } ?? false, "byte \(position)")
            #expect(outcome.out.starts(with: Self.content(30_000)), "byte \(position)")
            #expect((outcome.error?.cause as? ZstdError) != nil || outcome.error?.code == .zstdTruncated)
        }
    }

    @Test("bytes after the last frame that do not start one are zstd_corrupt at their offset")
    func trailingGarbage() throws {
        let frame = try Self.frame(Self.content(5_000))
        let outcome = Self.decompress(frame + Array("not zstd".utf8))
        #expect(outcome.error?.code == .zstdCorrupt)
        #expect(outcome.error?.byteOffset == frame.count)
        #expect(outcome.out == Self.content(5_000))
    }

    @Test("maxDecompressedBytes lets exactly that many bytes through, then zstd_too_large", arguments: [1, 999, 1000, 70_000])
    func decompressedLimit(limit: Int) throws {
        let outcome = Self.decompress(try Self.frame(Self.content(100_000)), maxDecompressedBytes: limit)
        #expect(outcome.error?.code == .zstdTooLarge)
        #expect(outcome.out == Array(Self.content(100_000).prefix(limit)))
    }

    @Test("a zstd bomb (zeros) passes the inflation ratio limit: zstd_too_large after the allowed output")
    func bomb() throws {
        let zeros = [UInt8](repeating: 0, count: 8 << 20)
        let frame = try Self.frame(zeros)
        #expect(frame.count < 2_000)
        let outcome = Self.decompress(frame, maxInflationRatio: 100, ratioGraceBytes: 64 << 10)
        #expect(outcome.error?.code == .zstdTooLarge)
        #expect(outcome.error?.message.contains("zstd bomb") == true)
        #expect(outcome.out.count < zeros.count)
        #expect(outcome.out.allSatisfy { $0 == 0 })
    }

    @Test("a frame asking for a window over 2^27 bytes is refused before allocating it")
    func windowTooLarge() {
        // Frame header: magic, descriptor 0x00 (window descriptor present, no checksum, no content size), window
        // descriptor with exponent 21 (2^(10+21) = 2 GiB), then a last raw block of one byte.
        let bytes: [UInt8] = OTLPZstd.magic + [0x00, 21 << 3, 0x09, 0x00, 0x00, 0x41]
        let outcome = Self.decompress(bytes)
        #expect(outcome.error?.code == .zstdTooLarge)
        #expect((outcome.error?.cause as? ZstdError)?.kind == .tooLarge)
    }

    @Test("one-shot decompression locates its faults in the record and keeps the record limit")
    func oneShot() throws {
        let frame = try Self.frame(Self.content(10_000))
        #expect(try OTLPZstd.decompress(frame, maxBytes: 10_000) == Self.content(10_000))
        #expect(throws: OTLPReadError.self) { try OTLPZstd.decompress(frame, maxBytes: 9_999) }
        do {
            _ = try OTLPZstd.decompress(Array(frame.dropLast(3)), maxBytes: .max)
            Issue.record("a cut frame decompressed")
        } catch {
            #expect(error.code == .zstdTruncated)
            #expect(error.offsetIn == .record)
            #expect(error.byteOffset == frame.count - 3)
        }
    }
}
