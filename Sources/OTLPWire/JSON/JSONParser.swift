/// A strict RFC 8259 JSON parser over UTF-8 bytes, with a nesting limit.
///
/// Recursion is bounded by `maxDepth`, so hostile input cannot exhaust the stack. Errors carry the byte
/// offset of the fault.
package struct JSONParser {
    package struct Failure: Error {
        package var offset: Int
        package var message: String
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private let maxDepth: Int
    private let maxTreeBytes: Int
    /// What the tree built so far takes, estimated: see ``parse(_:maxDepth:maxTreeBytes:treeBytes:)``.
    private var treeBytes = 0

    /// Parses exactly one JSON value (surrounding whitespace allowed).
    package static func parse(_ buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int = 512) throws(Failure) -> JSONValue {
        var treeBytes = 0
        return try parse(buffer, maxDepth: maxDepth, maxTreeBytes: .max, treeBytes: &treeBytes)
    }

    /// Parses exactly one JSON value, failing with a message starting "JSON tree" once the tree would take
    /// more than `maxTreeBytes` of memory. `treeBytes` is set to the estimate: for every value its slot in
    /// its container (twice the stride, for the spare capacity of a growing array), a heap header per
    /// non-empty container, and the storage of strings and numbers too long to be stored inline.
    package static func parse(
        _ buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int, maxTreeBytes: Int, treeBytes: inout Int
    ) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes: buffer, maxDepth: maxDepth, maxTreeBytes: maxTreeBytes)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == buffer.count else { throw Failure(offset: parser.index, message: "unexpected data after the JSON value") }
        treeBytes = parser.treeBytes
        return value
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, maxTreeBytes: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.maxTreeBytes = maxTreeBytes
    }

    private static let heapHeaderBytes = 32
    private static let memberBytes = 2 * MemoryLayout<(String, JSONValue)>.stride
    private static let elementBytes = 2 * MemoryLayout<JSONValue>.stride

    private mutating func charge(_ bytes: Int) throws(Failure) {
        treeBytes = treeBytes.addingReportingOverflow(bytes).partialValue
        if treeBytes > maxTreeBytes || treeBytes < 0 {
            throw fail("JSON tree would take more than \(maxTreeBytes) bytes of memory")
        }
    }

    /// The heap storage of a string of `count` UTF-8 bytes (Swift stores up to 15 inline).
    private mutating func chargeString(_ count: Int) throws(Failure) {
        if count > 15 { try charge(Self.heapHeaderBytes + count) }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    private func fail(_ message: String) -> Failure { Failure(offset: index, message: message) }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            guard depth < maxDepth else { throw fail("JSON nested deeper than \(maxDepth) levels") }
            index += 1
            var members: [(String, JSONValue)] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            try charge(Self.heapHeaderBytes)
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
                let key = try string()
                try charge(Self.memberBytes)
                try chargeString(key.utf8.count)
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                index += 1
                skipWhitespace()
                members.append((key, try value(depth: depth + 1)))
                skipWhitespace()
                guard index < bytes.count else { throw fail("unexpected end of input in an object") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                throw fail("expected ',' or '}'")
            }
        case UInt8(ascii: "["):
            guard depth < maxDepth else { throw fail("JSON nested deeper than \(maxDepth) levels") }
            index += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
            try charge(Self.heapHeaderBytes)
            while true {
                skipWhitespace()
                try charge(Self.elementBytes)
                elements.append(try value(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw fail("unexpected end of input in an array") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
                throw fail("expected ',' or ']'")
            }
        case UInt8(ascii: "\""):
            let text = try string()
            try chargeString(text.utf8.count)
            return .string(text)
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default:
            let text = try number()
            try chargeString(text.utf8.count)
            return .number(text)
        }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw fail("invalid literal") }
        for k in 0..<count where bytes[index + k] != word.utf8Start[k] { throw fail("invalid literal") }
        index += count
    }

    private mutating func number() throws(Failure) -> String {
        let start = index
        func digit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, digit(bytes[index]) else { throw fail("invalid value") }
        if bytes[index] == UInt8(ascii: "0") { index += 1 } else { while index < bytes.count, digit(bytes[index]) { index += 1 } }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, digit(bytes[index]) else { throw fail("invalid number") }
            while index < bytes.count, digit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, digit(bytes[index]) else { throw fail("invalid number") }
            while index < bytes.count, digit(bytes[index]) { index += 1 }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let nibble: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw fail("invalid \\u escape")
            }
            value = value << 4 | nibble
            index += 1
        }
        return value
    }

    private mutating func string() throws(Failure) -> String {
        index += 1  // opening quote
        var out: [UInt8] = []
        var runStart = index
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                index += 1
                break
            }
            if c < 0x20 { throw fail("control character in a string") }
            if c != UInt8(ascii: "\\") { index += 1; continue }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            index += 1
            guard index < bytes.count else { throw fail("unterminated escape") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw fail("unpaired surrogate in \\u escape")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate in \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw fail("unpaired surrogate in \\u escape")
                }
                out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
            default:
                throw fail("invalid escape")
            }
            runStart = index
        }
        guard let string = String(validating: out, as: UTF8.self) else { throw fail("string is not valid UTF-8") }
        return string
    }
}
