/// Appends JSON tokens to a byte buffer. Small and allocation-free per token.
struct JSONOutput {
    var bytes: [UInt8] = []
    private var needsComma = false

    init(reservingCapacity capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    mutating func beginObject() { separator(); bytes.append(UInt8(ascii: "{")); needsComma = false }
    mutating func endObject() { bytes.append(UInt8(ascii: "}")); needsComma = true }
    mutating func beginArray() { separator(); bytes.append(UInt8(ascii: "[")); needsComma = false }
    mutating func endArray() { bytes.append(UInt8(ascii: "]")); needsComma = true }

    mutating func key(_ key: StaticString) {
        separator()
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        needsComma = false
    }

    mutating func string(_ value: String) {
        separator()
        Self.appendQuoted(value, to: &bytes)
        needsComma = true
    }

    /// A raw token (number, `true`, a pre-quoted string).
    mutating func raw(_ token: String) {
        separator()
        bytes.append(contentsOf: token.utf8)
        needsComma = true
    }

    mutating func quotedRaw(_ token: String) {
        separator()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: token.utf8)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    private mutating func separator() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    static func appendQuoted(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        let done: Void? = value.utf8.withContiguousStorageIfAvailable { appendEscaped($0, to: &bytes) }
        if done == nil { Array(value.utf8).withUnsafeBufferPointer { appendEscaped($0, to: &bytes) } }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends runs of bytes that need no escape in one copy each; escapes `"`, `\\` and control characters.
    private static func appendEscaped(_ source: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        var runStart = 0
        for index in 0..<source.count {
            let byte = source[index]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") && byte != 0x7F { continue }
            if runStart < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart..<index])) }
            runStart = index + 1
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            default:
                bytes.append(contentsOf: [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)],
                ])
            }
        }
        if runStart < source.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart...])) }
    }
}
