/// A 16-byte W3C trace ID.
///
/// Stored as two big-endian 64-bit halves, so it needs no heap allocation. Its text form is 32 lowercase
/// hexadecimal digits, as in OTLP/JSON and the W3C `traceparent` header.
public struct OTLPTraceID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The first 8 bytes, big-endian.
    public var high: UInt64
    /// The last 8 bytes, big-endian.
    public var low: UInt64

    /// Creates a trace ID from its two big-endian halves.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Creates a trace ID from exactly 16 bytes; `nil` for any other count.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (index, byte) in bytes.enumerated() {
            if index < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.init(high: high, low: low)
    }

    /// Parses 32 hexadecimal digits (either case); `nil` for anything else.
    public init?(hex: some StringProtocol) {
        guard hex.utf8.count == 32, let bytes = HexText.decode(hex) else { return nil }
        self.init(bytes: bytes)
    }

    /// The 16 bytes, most significant first.
    public var bytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 {
            out[i] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(i)))
            out[8 + i] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(i)))
        }
        return out
    }

    /// `true` when every byte is zero (an invalid trace ID per W3C Trace Context).
    package var isZero: Bool { high == 0 && low == 0 }

    /// 32 lowercase hexadecimal digits.
    package var hex: String { HexText.encode(bytes) }

    public var description: String { hex }

    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.high, lhs.low) < (rhs.high, rhs.low) }
}
