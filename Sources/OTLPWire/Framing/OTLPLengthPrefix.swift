/// The length prefixes of the binary framings, coded in one place: the writer encodes with it, and the record
/// reader, the framing detector and the OTLPHTTP spool decode with it.
///
/// Decoding never traps and never trusts the declared value: a varint longer than 10 bytes or past 64 bits
/// is invalid, and a declared length is returned as `UInt64` for the caller to compare with its limit before
/// it turns into an `Int` or an offset.
package enum OTLPLengthPrefix {
    /// The size of a `u32be` prefix.
    package static let u32Bytes = 4
    /// The longest varint prefix: 10 bytes carry 64 bits.
    static let maxVarintBytes = 10

    /// What the first bytes of a record say.
    package enum Decoded: Equatable {
        /// A complete prefix: the message length it declares and the prefix's own size in bytes.
        case length(UInt64, prefixBytes: Int)
        /// The bytes end inside the prefix.
        case incomplete
        /// Not a valid prefix (a varint over 10 bytes, or one whose value is past 64 bits).
        case invalid(String)
    }

    /// Decodes the prefix at the start of `bytes` for `framing` (`u32be` or `varint`; other framings have none
    /// and decode as a zero-byte prefix declaring every byte given).
    package static func decode<Bytes: Collection<UInt8>>(_ bytes: Bytes, framing: OTLPFraming) -> Decoded {
        switch framing {
        case .u32be:
            guard bytes.count >= u32Bytes else { return .incomplete }
            let length = bytes.prefix(u32Bytes).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return .length(length, prefixBytes: u32Bytes)
        case .varint:
            var length: UInt64 = 0
            var count = 0
            for byte in bytes.prefix(maxVarintBytes) {
                let group = UInt64(byte & 0x7F)
                if count == maxVarintBytes - 1 {
                    if byte & 0x80 != 0 { return .invalid("varint length prefix longer than \(maxVarintBytes) bytes") }
                    if group > 1 { return .invalid("varint length prefix is past 64 bits (10th byte 0x\(String(byte, radix: 16)))") }
                }
                length |= group << UInt64(7 * count)
                count += 1
                if byte & 0x80 == 0 { return .length(length, prefixBytes: count) }
            }
            return .incomplete
        case .jsonl, .unframed:
            return .length(UInt64(bytes.count), prefixBytes: 0)
        }
    }

    /// Appends the prefix announcing a message of `length` bytes for `framing` (nothing for `jsonl` and
    /// `unframed`). Returns `false`, appending nothing, when `length` cannot be expressed (`u32be` over
    /// 4 GiB - 1, or negative).
    package static func encode(_ length: Int, framing: OTLPFraming, into output: inout [UInt8]) -> Bool {
        guard length >= 0 else { return false }
        switch framing {
        case .u32be:
            guard let value = UInt32(exactly: length) else { return false }
            output.append(contentsOf: [
                UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
                UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value),
            ])
        case .varint:
            var value = UInt64(length)
            while value >= 0x80 {
                output.append(UInt8(truncatingIfNeeded: value) | 0x80)
                value >>= 7
            }
            output.append(UInt8(value))
        case .jsonl, .unframed:
            break
        }
        return true
    }
}
