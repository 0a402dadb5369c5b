/// Splits `u32be`-framed bytes into their records, as the tests compare them with what a collector or a
/// reader got: each record is the message behind its 4-byte big-endian length. Bytes after the last whole
/// prefix are left out; a length past the end traps (the tests' own files are well formed).
public enum OTLPFramedRecords {
    /// The records of `bytes`, in order.
    public static func u32be(_ bytes: [UInt8]) -> [[UInt8]] {
        var records: [[UInt8]] = []
        var offset = 0
        while offset + 4 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            records.append(Array(bytes[offset + 4..<offset + 4 + length]))
            offset += 4 + length
        }
        return records
    }
}
