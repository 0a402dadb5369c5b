/// Hand-made protobuf wire bytes, for inputs the encoder would never write (IDs of the wrong length, deep
/// nesting, damage) and for requests a test builds without the encoder under test: the one place tests
/// write the wire format themselves.
public enum OTLPProtobufBytes {
    /// `value` as a base-128 varint.
    public static func varint(_ value: UInt64) -> [UInt8] {
        var value = value
        var out: [UInt8] = []
        while value >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        return out + [UInt8(value)]
    }

    /// A length-delimited field (wire type 2): a message, a string or bytes.
    public static func field(_ number: Int, _ payload: [UInt8]) -> [UInt8] {
        varint(UInt64(number) << 3 | 2) + varint(UInt64(payload.count)) + payload
    }

    /// A varint field (wire type 0).
    public static func varintField(_ number: Int, _ value: UInt64) -> [UInt8] {
        varint(UInt64(number) << 3) + varint(value)
    }

    /// A fixed64 field (wire type 1), little-endian as the wire format has it.
    public static func fixed64Field(_ number: Int, _ value: UInt64) -> [UInt8] {
        varint(UInt64(number) << 3 | 1) + (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
