import Testing
@testable import OTLPWire

/// The JSON parser says what went wrong as a kind, and the OTLP JSON decoder classifies by that kind (never by
/// the message); the messages stay as they were.
@Suite("JSON parser failure kinds")
struct JSONParserFailureTests {
    typealias Kind = JSONParser.Failure.Kind

    static let cases: [(json: [UInt8], kind: Kind, message: String, offset: Int)] = [
        (Array(#"{"a":"#.utf8), .unexpectedEnd, "unexpected end of input", 5),
        (Array(#"{"a":1"#.utf8), .unexpectedEnd, "unexpected end of input in an object", 6),
        (Array("[1".utf8), .unexpectedEnd, "unexpected end of input in an array", 2),
        (Array(#""abc"#.utf8), .unexpectedEnd, "unterminated string", 4),
        (Array(#""\"#.utf8), .unexpectedEnd, "unterminated escape", 2),
        (Array(#""\u12""#.utf8), .unexpectedEnd, "truncated \\u escape", 3),
        (Array(#"{"a":1]"#.utf8), .unexpectedToken, "expected ',' or '}'", 6),
        (Array("[1}".utf8), .unexpectedToken, "expected ',' or ']'", 2),
        (Array("{1:2}".utf8), .unexpectedToken, "expected a member name", 1),
        (Array(#"{"a" 1}"#.utf8), .unexpectedToken, "expected ':'", 5),
        (Array("tru".utf8), .unexpectedToken, "invalid literal", 0),
        (Array("x".utf8), .unexpectedToken, "invalid value", 0),
        (Array("1 2".utf8), .unexpectedToken, "unexpected data after the JSON value", 2),
        (Array("1.".utf8), .invalidNumber, "invalid number", 2),
        (Array("1e+".utf8), .invalidNumber, "invalid number", 3),
        (Array("\"a\u{01}\"".utf8), .invalidString, "control character in a string", 2),
        ([0x22, 0xFF, 0x22], .invalidString, "string is not valid UTF-8", 3),
        (Array(#""\x""#.utf8), .invalidEscape, "invalid escape", 3),
        (Array(#""\u12G4""#.utf8), .invalidEscape, "invalid \\u escape", 5),
        (Array(#""\uD800""#.utf8), .invalidEscape, "unpaired surrogate in \\u escape", 7),
        (Array("[[[1]]]".utf8), .nestingTooDeep, "JSON nested deeper than 2 levels", 2),
    ]

    static func failure(_ json: [UInt8], maxTreeBytes: Int = .max) -> JSONParser.Failure? {
        var treeBytes = 0
        let result = json.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParser.Failure) in
                try JSONParser.parse(buffer, maxDepth: 2, maxTreeBytes: maxTreeBytes, treeBytes: &treeBytes)
            }
        }
        guard case .failure(let failure) = result else { return nil }
        return failure
    }

    @Test("each fault has its kind, message and offset", arguments: cases.indices)
    func kinds(index: Int) throws {
        let (json, kind, message, offset) = Self.cases[index]
        let failure = try #require(Self.failure(json), "\(String(decoding: json, as: UTF8.self)) parsed")
        #expect(failure.kind == kind, "\(String(decoding: json, as: UTF8.self))")
        #expect(failure.message == message)
        #expect(failure.offset == offset)
    }

    @Test("a tree over its memory limit is treeTooLarge")
    func treeTooLarge() throws {
        let failure = try #require(Self.failure(Array(#"["a string longer than fifteen bytes"]"#.utf8), maxTreeBytes: 64))
        #expect(failure.kind == .treeTooLarge)
        #expect(failure.message == "JSON tree would take more than 64 bytes of memory")
    }

    static func decode(_ json: String, _ options: OTLPDecodingOptions = .default) -> OTLPReadError? {
        let bytes = Array(json.utf8)
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(OTLPReadError) in try OTLPJSONDecoder(options: options).decodeTraces(raw) }
        }
        guard case .failure(let error) = result else { return nil }
        return error
    }

    @Test("the decoder maps nesting to nesting_too_deep, the tree limit to record_too_large, the rest to malformed_json")
    func decoderClassification() throws {
        let deep = try #require(
            Self.decode(String(repeating: "[", count: 20) + String(repeating: "]", count: 20), .init(maxNestingDepth: 1)))
        #expect(deep.code == .nestingTooDeep && deep.message == "JSON nested deeper than 11 levels" && deep.byteOffset == 11)
        let large = try #require(Self.decode(#"{"resourceSpans":[]}"#, .init(maxDecodedBytes: 16)))
        #expect(large.code == .recordTooLarge && large.message == "JSON tree would take more than 16 bytes of memory (maxDecodedBytes)")
        #expect(large.offsetIn == .record)
        let syntax = try #require(Self.decode(#"{"resourceSpans":[1}"#))
        #expect(syntax.code == .malformedJSON && syntax.message == "expected ',' or ']'" && syntax.byteOffset == 19)
    }
}
