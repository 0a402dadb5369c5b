/// An 8-byte W3C span ID, stored as one big-endian 64-bit integer.
public struct OTLPSpanID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 8 bytes as a big-endian integer.
    public var value: UInt64

    /// Creates a span ID from its big-endian integer value.
    public init(_ value: UInt64) {
        self.value = value
    }

    /// Creates a span ID from exactly 8 bytes; `nil` for any other count.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 8 else { return nil }
        self.value = bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Parses 16 hexadecimal digits (either case); `nil` for anything else.
    public init?(hex: some StringProtocol) {
        guard hex.utf8.count == 16, let bytes = HexText.decode(hex) else { return nil }
        self.init(bytes: bytes)
    }

    /// The 8 bytes, most significant first.
    public var bytes: [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) } }

    /// `true` when every byte is zero (an invalid span ID per W3C Trace Context).
    package var isZero: Bool { value == 0 }

    /// 16 lowercase hexadecimal digits.
    package var hex: String { HexText.encode(bytes) }

    public var description: String { hex }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.value < rhs.value }
}
