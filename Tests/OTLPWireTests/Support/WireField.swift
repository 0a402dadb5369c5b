/// A protobuf message read as a tree of fields without a schema (a length-delimited field whose bytes read
/// cleanly as fields is taken as a message), written back with every length recomputed: the tests mutate
/// requests field by field (a field duplicated, dropped, renumbered, given another wire type, encoded
/// overlong) and still reach deep into them, where byte-level damage mostly breaks the outer lengths.
struct WireField: Equatable {
    /// The field number (0 and numbers past protobuf's range can be written too).
    var number: UInt64
    /// The wire type written in the tag (any of 0-7).
    var wire: UInt8
    /// The value's bytes as they follow the tag: a varint's bytes, 8 or 4 fixed bytes, or for wire type 2
    /// the payload (without its length, which is written from `children` or `value`).
    var value: [UInt8]
    /// The fields of a length-delimited value that reads as a message; `nil` for any other value.
    var children: [WireField]?
    /// Bytes the tag is written in: 0 for its shortest encoding, more for an overlong one (0x80-padded).
    var tagBytes = 0
    /// Bytes a wire type 2 length is written in: 0 for its shortest encoding, more for an overlong one.
    var lengthBytes = 0

    /// The fields of `bytes`, or `nil` when they do not read as whole fields (groups are not read).
    static func parse(_ bytes: ArraySlice<UInt8>, depth: Int = 0) -> [WireField]? {
        var fields: [WireField] = []
        var position = bytes.startIndex
        while position < bytes.endIndex {
            guard let tag = varint(bytes, &position) else { return nil }
            let wire = UInt8(tag & 7)
            var field = WireField(number: tag >> 3, wire: wire, value: [])
            switch wire {
            case 0:
                let start = position
                guard varint(bytes, &position) != nil else { return nil }
                field.value = Array(bytes[start..<position])
            case 1, 5:
                let size = wire == 1 ? 8 : 4
                guard bytes.endIndex - position >= size else { return nil }
                field.value = Array(bytes[position..<position + size])
                position += size
            case 2:
                guard let length = varint(bytes, &position), length <= UInt64(bytes.endIndex - position) else { return nil }
                let payload = bytes[position..<position + Int(length)]
                field.value = Array(payload)
                if !payload.isEmpty && depth < 64 { field.children = parse(payload, depth: depth + 1) }
                position += Int(length)
            default:
                return nil
            }
            fields.append(field)
        }
        return fields
    }

    /// `fields` written as protobuf.
    static func encode(_ fields: [WireField]) -> [UInt8] {
        var out: [UInt8] = []
        for field in fields { field.write(to: &out) }
        return out
    }

    func write(to out: inout [UInt8]) {
        out += Self.varint(number << 3 | UInt64(wire & 7), bytes: tagBytes)
        let payload = children.map { Self.encode($0) } ?? value
        if wire == 2 { out += Self.varint(UInt64(payload.count), bytes: lengthBytes) }
        out += payload
    }

    /// `value` as a varint, 0x80-padded to `bytes` bytes when that is longer than its shortest encoding.
    static func varint(_ value: UInt64, bytes: Int = 0) -> [UInt8] {
        var out: [UInt8] = []
        var rest = value
        repeat {
            out.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        } while rest != 0
        while out.count < bytes { out.append(0x80) }
        out[out.count - 1] &= 0x7F
        return out
    }

    private static func varint(_ bytes: ArraySlice<UInt8>, _ position: inout Int) -> UInt64? {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 70, by: 7) {
            guard position < bytes.endIndex else { return nil }
            let byte = bytes[position]
            position += 1
            value |= UInt64(byte & 0x7F) << UInt64(min(shift, 63))
            if byte & 0x80 == 0 { return value }
        }
        return nil
    }

    /// The paths (child indexes from the top) of every field of `fields`, depth first.
    static func paths(_ fields: [WireField], prefix: [Int] = []) -> [[Int]] {
        var out: [[Int]] = []
        for (index, field) in fields.enumerated() {
            out.append(prefix + [index])
            if let children = field.children { out += paths(children, prefix: prefix + [index]) }
        }
        return out
    }

    /// Calls `change` on the list of fields that holds the field at `path` and its index there.
    static func modify(_ fields: inout [WireField], at path: [Int], _ change: (inout [WireField], Int) -> Void) {
        guard let first = path.first, fields.indices.contains(first) else { return }
        if path.count == 1 {
            change(&fields, first)
            return
        }
        guard var children = fields[first].children else { return }
        modify(&children, at: Array(path.dropFirst()), change)
        fields[first].children = children
    }
}
