internal import CZlib

/// CRC-32 (the checksum gzip uses, zlib's `crc32`), for checking that bytes read back are the bytes written.
package enum OTLPCRC32 {
    /// The CRC-32 of `bytes`, continuing from `previous` (0 to start).
    package static func checksum(_ bytes: UnsafeRawBufferPointer, continuing previous: UInt32 = 0) -> UInt32 {
        var crc = UInt(previous)
        var rest = bytes
        // zlib takes a 32-bit length: larger buffers in pieces.
        while !rest.isEmpty {
            let count = min(rest.count, Int(UInt32.max))
            crc = UInt(crc32(crc, rest.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt32(count)))
            rest = UnsafeRawBufferPointer(rebasing: rest[count...])
        }
        return UInt32(truncatingIfNeeded: crc)
    }

    /// The CRC-32 of `bytes`.
    package static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }
}
