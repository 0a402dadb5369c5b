/// One-shot gzip for this package's other libraries (an OTLP/HTTP request body with `Content-Encoding: gzip`,
/// a spool record stored compressed), through the same compressor as the file writers (libdeflate on Linux, zlib
/// elsewhere) and the same zlib reader.
package enum OTLPGzip {
    /// The levels a configuration accepts for gzip (`gzipLevel`), on zlib's scale: 1 (fastest) to 9 (smallest).
    package static let levelRange = 1...9

    /// The `gzipLevel` of every configuration that compresses with gzip (file outputs, the spool, OTLP/HTTP
    /// bodies), chosen by measurement (the Configuration article has the figures).
    package static let defaultLevel = 1

    /// `bytes` as one complete gzip member, compressed at `level` (0...9). Each call makes its compressor (with
    /// libdeflate about 4 µs, 3 % of compressing 128 KiB at level 1).
    package static func compress(
        _ bytes: UnsafeRawBufferPointer, level: Int32 = Int32(OTLPGzip.defaultLevel)
    ) throws(OTLPWriteError) -> [UInt8] {
        let deflater = GzipDeflater(level: level)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 4 + 64)
        try deflater.compressMember(bytes, into: &out)
        return out
    }

    /// The two bytes every gzip member starts with (RFC 1952).
    package static let magic: [UInt8] = [0x1F, 0x8B]

    /// Whether `bytes` start as a gzip member does (its two magic bytes). An encoded protobuf message never
    /// does: its first byte would be field 3 with wire type 7, which does not exist.
    package static func isCompressed(_ bytes: some Sequence<UInt8>) -> Bool {
        bytes.starts(with: magic)
    }

    /// The decompressed content of `bytes`: one complete gzip member (a second one is a `gzip_corrupt` error).
    /// More than `maxBytes` of output is a `gzip_too_large` error; a damaged or truncated member is the
    /// reader's gzip error for it, its offset counted from the start of `bytes` (``OTLPReadError/OffsetBase/record``).
    /// Memory: the output, reserved as the member's trailer announces and never grown past `maxBytes`.
    package static func decompress(_ bytes: [UInt8], maxBytes: Int) throws(OTLPReadError) -> [UInt8] {
        let inflater = GzipInflater(
            source: OTLPMemorySource(bytes), chunkSize: max(1, min(bytes.count, 64 << 10)), maxDecompressedBytes: maxBytes)
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer { chunk.deallocate() }
        var out: [UInt8] = []
        // ISIZE, the last 4 bytes (little-endian): the size modulo 2^32, as the member claims it.
        let announced = bytes.count >= 18 ? bytes.suffix(4).reversed().reduce(0) { $0 << 8 | Int($1) } : 0
        out.reserveCapacity(min(maxBytes, announced))
        do throws(OTLPReadError) {
            while true {
                let count = try inflater.read(into: chunk)
                guard count > 0 else { break }
                if out.count + count > out.capacity {
                    out.reserveCapacity(min(maxBytes, max(out.count + count, out.capacity * 2)))
                }
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[..<count]))
            }
        } catch {
            var located = error
            if located.offsetIn == .file { located.offsetIn = .record }
            throw located
        }
        guard inflater.membersStarted <= 1 else {
            throw OTLPReadError(.gzipCorrupt, "more than one gzip member in one record")
        }
        return out
    }
}
