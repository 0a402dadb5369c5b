internal import OTLPWire

/// Parses payload JSON without recursion: containers are kept on an explicit stack, so the nesting limit
/// (``MetricKitConverter/Options/maxPayloadNestingDepth``) can be high enough for deep call-stack trees
/// (about two JSON levels per frame) without exhausting the thread's stack. Strings, numbers and literals
/// are read by OTLPWire's strict parser, so both accept exactly the same JSON.
enum MetricKitJSONParser {
    /// Why the bytes are not a JSON document: byte offset and message.
    struct Failure: Error {
        var offset: Int
        var message: String
        /// The nesting limit was reached (not a syntax error).
        var isTooDeep = false
    }

    /// An open array or object. Its values are appended in place (`stack[last].elements.append`): a
    /// container moved in and out of an enum would be copied on every append (quadratic).
    private struct Container {
        var isObject: Bool
        var elements: [JSONValue] = []
        var members: [(String, JSONValue)] = []
        /// The name of the object member whose value is being read.
        var key = ""
    }

    /// Parses exactly one JSON value (surrounding whitespace allowed), at most `maxDepth` containers deep.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) throws(Failure) -> JSONValue {
        var index = 0
        var stack: [Container] = []

        func skipWhitespace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
                index += 1
            }
        }
        func fail(_ message: String) -> Failure { Failure(offset: index, message: message) }
        /// A string, number or literal starting at `index`, read by OTLPWire's parser.
        func leaf() throws(Failure) -> JSONValue {
            let start = index
            if bytes[index] == UInt8(ascii: "\"") {
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") { index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1 }
                guard index < bytes.count else { throw Failure(offset: start, message: "unterminated string") }
                index += 1
            } else {
                while index < bytes.count, !Self.isDelimiter(bytes[index]) { index += 1 }
            }
            guard index > start else { throw fail("invalid value") }
            do {
                return try JSONParser.parse(UnsafeBufferPointer(rebasing: bytes[start..<index]), maxDepth: 0)
            } catch {
                throw Failure(offset: start + error.offset, message: error.message)
            }
        }
        /// `"name" :` of an object member.
        func memberName() throws(Failure) -> String {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            guard case .string(let key) = try leaf() else { throw fail("expected a member name") }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            return key
        }

        while true {
            // Read one value: a scalar completes at once, an opening bracket pushes a container.
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input") }
            var completed: JSONValue
            let byte = bytes[index]
            if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                guard stack.count < maxDepth else {
                    var failure = fail("JSON nested deeper than \(maxDepth) levels")
                    failure.isTooDeep = true
                    throw failure
                }
                index += 1
                skipWhitespace()
                if byte == UInt8(ascii: "{") {
                    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                        index += 1
                        completed = .object([])
                    } else {
                        stack.append(Container(isObject: true, key: try memberName()))
                        continue
                    }
                } else {
                    if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                        index += 1
                        completed = .array([])
                    } else {
                        stack.append(Container(isObject: false))
                        continue
                    }
                }
            } else {
                completed = try leaf()
            }
            // Hand the value to its container; close containers whose last value this was.
            while true {
                guard !stack.isEmpty else {
                    skipWhitespace()
                    guard index == bytes.count else { throw fail("unexpected data after the JSON value") }
                    return completed
                }
                let top = stack.count - 1
                skipWhitespace()
                if stack[top].isObject {
                    stack[top].members.append((stack[top].key, completed))
                    guard index < bytes.count else { throw fail("unexpected end of input in an object") }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        stack[top].key = try memberName()
                    } else if bytes[index] == UInt8(ascii: "}") {
                        index += 1
                        completed = .object(stack.removeLast().members)
                        continue
                    } else {
                        throw fail("expected ',' or '}'")
                    }
                } else {
                    stack[top].elements.append(completed)
                    guard index < bytes.count else { throw fail("unexpected end of input in an array") }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                    } else if bytes[index] == UInt8(ascii: "]") {
                        index += 1
                        completed = .array(stack.removeLast().elements)
                        continue
                    } else {
                        throw fail("expected ',' or ']'")
                    }
                }
                break
            }
        }
    }

    /// Whether `byte` ends a number or literal.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ":"), 0x20, 0x0A, 0x0D, 0x09: true
        default: false
        }
    }
}
