/// A strict RFC 8259 JSON parser over UTF-8 bytes, with a nesting limit.
///
/// Recursion is bounded by `maxDepth`, so hostile input cannot exhaust the stack. Errors carry the byte
/// offset of the fault.
/// An object member as the parser collects it.
typealias JSONMember = (String, JSONValue)

package struct JSONParser {
    /// Why the bytes are not a JSON value within the limits: what went wrong, where, and in words.
    package struct Failure: Error {
        /// What went wrong; decoders classify by this, never by the message.
        package enum Kind: Sendable, Equatable {
            /// The input ends inside a value (an open container, string or escape).
            case unexpectedEnd
            /// A byte that cannot come here: a missing `,` `:` or member name, a bad literal, data after the value.
            case unexpectedToken
            /// A number that does not follow the JSON grammar.
            case invalidNumber
            /// A string with a control character, or that is not valid UTF-8.
            case invalidString
            /// A bad escape in a string: unknown, a malformed `\u`, or an unpaired surrogate.
            case invalidEscape
            /// Containers nested deeper than the parser's `maxDepth`.
            case nestingTooDeep
            /// The tree would take more memory than the parser's `maxTreeBytes`.
            case treeTooLarge
        }

        package var kind: Kind
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

    /// Parses exactly one JSON value, failing with ``Failure/Kind/treeTooLarge`` once the tree would take
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
        guard parser.index == buffer.count else {
            throw Failure(kind: .unexpectedToken, offset: parser.index, message: "unexpected data after the JSON value")
        }
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
            throw fail(.treeTooLarge, "JSON tree would take more than \(maxTreeBytes) bytes of memory")
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

    private func fail(_ kind: Failure.Kind, _ message: String) -> Failure { Failure(kind: kind, offset: index, message: message) }

    /// One JSON value, parsed without recursion: open containers live on explicit stacks (a deeply nested
    /// document costs heap, bounded by `maxDepth`, never call stack).
    private mutating func value(depth _: Int) throws(Failure) -> JSONValue {
        var isObject: [Bool] = []  // the open containers, innermost last
        var arrays: [[JSONValue]] = []  // elements of the open arrays
        var objects: [[JSONMember]] = []  // members of the open objects
        var keys: [String] = []  // the key whose value is being parsed, per open object
        while true {
            var finished: JSONValue
            guard index < bytes.count else { throw fail(.unexpectedEnd, "unexpected end of input") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                guard isObject.count < maxDepth else { throw tooDeep() }
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    finished = JSONValue.object([(String, JSONValue)]())
                } else {
                    try charge(Self.heapHeaderBytes)
                    keys.append(try memberKey())
                    objects.append([])
                    isObject.append(true)
                    continue
                }
            case UInt8(ascii: "["):
                guard isObject.count < maxDepth else { throw tooDeep() }
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    finished = JSONValue.array([JSONValue]())
                } else {
                    try charge(Self.heapHeaderBytes + Self.elementBytes)
                    arrays.append([])
                    isObject.append(false)
                    continue
                }
            case UInt8(ascii: "\""):
                let text = try string()
                try chargeString(text.utf8.count)
                finished = .string(text)
            case UInt8(ascii: "t"): try literal("true"); finished = .bool(true)
            case UInt8(ascii: "f"): try literal("false"); finished = .bool(false)
            case UInt8(ascii: "n"): try literal("null"); finished = .null
            default:
                let text = try number()
                try chargeString(text.utf8.count)
                finished = .number(text)
            }
            // Hand the value to its container; close every container that ends here.
            closing: while true {
                guard let inObject = isObject.last else { return finished }
                skipWhitespace()
                if inObject {
                    objects[objects.count - 1].append((keys.removeLast(), finished))
                    guard index < bytes.count else { throw fail(.unexpectedEnd, "unexpected end of input in an object") }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        keys.append(try memberKey())
                        break closing
                    }
                    guard bytes[index] == UInt8(ascii: "}") else { throw fail(.unexpectedToken, "expected ',' or '}'") }
                    index += 1
                    isObject.removeLast()
                    finished = .object(objects.removeLast())
                } else {
                    arrays[arrays.count - 1].append(finished)
                    guard index < bytes.count else { throw fail(.unexpectedEnd, "unexpected end of input in an array") }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        skipWhitespace()
                        try charge(Self.elementBytes)
                        break closing
                    }
                    guard bytes[index] == UInt8(ascii: "]") else { throw fail(.unexpectedToken, "expected ',' or ']'") }
                    index += 1
                    isObject.removeLast()
                    finished = .array(arrays.removeLast())
                }
            }
        }
    }

    private func tooDeep() -> Failure { fail(.nestingTooDeep, "JSON nested deeper than \(maxDepth) levels") }

    /// A member name and its colon, with the whitespace around them; charges the member's slot.
    private mutating func memberKey() throws(Failure) -> String {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail(.unexpectedToken, "expected a member name") }
        let key = try string()
        try charge(Self.memberBytes)
        try chargeString(key.utf8.count)
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail(.unexpectedToken, "expected ':'") }
        index += 1
        skipWhitespace()
        return key
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw fail(.unexpectedToken, "invalid literal") }
        for k in 0..<count where bytes[index + k] != word.utf8Start[k] { throw fail(.unexpectedToken, "invalid literal") }
        index += count
    }

    private mutating func number() throws(Failure) -> String {
        let start = index
        func digit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, digit(bytes[index]) else { throw fail(.unexpectedToken, "invalid value") }
        if bytes[index] == UInt8(ascii: "0") { index += 1 } else { while index < bytes.count, digit(bytes[index]) { index += 1 } }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, digit(bytes[index]) else { throw fail(.invalidNumber, "invalid number") }
            while index < bytes.count, digit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, digit(bytes[index]) else { throw fail(.invalidNumber, "invalid number") }
            while index < bytes.count, digit(bytes[index]) { index += 1 }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail(.unexpectedEnd, "truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let nibble: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw fail(.invalidEscape, "invalid \\u escape")
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
            guard index < bytes.count else { throw fail(.unexpectedEnd, "unterminated string") }
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                index += 1
                break
            }
            if c < 0x20 { throw fail(.invalidString, "control character in a string") }
            if c != UInt8(ascii: "\\") { index += 1; continue }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            index += 1
            guard index < bytes.count else { throw fail(.unexpectedEnd, "unterminated escape") }
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
                        throw fail(.invalidEscape, "unpaired surrogate in \\u escape")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail(.invalidEscape, "unpaired surrogate in \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw fail(.invalidEscape, "unpaired surrogate in \\u escape")
                }
                out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
            default:
                throw fail(.invalidEscape, "invalid escape")
            }
            runStart = index
        }
        guard let string = String(validating: out, as: UTF8.self) else { throw fail(.invalidString, "string is not valid UTF-8") }
        return string
    }
}
