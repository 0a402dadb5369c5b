import Testing
import Tracing
import OTLPWire
@testable import OTLPTelemetry

@Suite("OTLPAttributeKeyOrder")
struct OTLPAttributeKeyOrderTests {
    /// Keys whose order the word comparison could get wrong: shared 8-byte prefixes, prefixes of each other, NUL
    /// bytes, non-ASCII (combining forms, which `<` compares after normalization; no two keys canonically equal,
    /// as the keys of one span are distinct), long and short.
    static let awkwardKeys = [
        "", "a", "ab", "abc\u{0}", "abc", "abcdefgh", "abcdefgh\u{0}", "abcdefghi", "abcdefgg", "abcdefgi", "http.request.method",
        "http.response.status_code", "http.route", "url.path", "url", "ñandú", "e\u{301}", "abcdefge\u{301}", "abcdefgf\u{301}", "abcdefg",
        "zz", "Z", "app.item.count", "app.cache.hit", "app.ratio", "日本語のキー", "~", "\u{7f}", "abcdefgh\u{80}",
    ]

    /// The order `sort { $0.key < $1.key }` gives.
    static func referenceOrder(_ attributes: [OTLPAttribute]) -> [String] {
        attributes.sorted { $0.key < $1.key }.map(\.key)
    }

    @Test("Sorts as String's < does, for every size up to and past the insertion sort's (awkward keys in many orders)")
    func sameOrderAsStringComparison() {
        let pool = Self.awkwardKeys
        #expect(pool.count == 29 && Set(pool).count == pool.count)
        // Keys drawn from the pool at a stride from a start: every start, several strides, every size.
        for count in 0...pool.count {
            for start in pool.indices {
                for stride in [1, 2, 3, 5, 7, 11] {
                    // The pool's size is prime: a stride below it visits every key once.
                    let keys = (0..<count).map { pool[(start + $0 * stride) % pool.count] }
                    let attributes = keys.enumerated().map { OTLPAttribute($0.element, .int(Int64($0.offset))) }
                    var sorted = attributes
                    OTLPAttributeKeyOrder.sort(&sorted)
                    #expect(sorted.map(\.key) == Self.referenceOrder(attributes), "from \(keys)")
                    // Each value stays with its key.
                    #expect(sorted.allSatisfy { attribute in attributes.first { $0.key == attribute.key }?.value == attribute.value })
                }
            }
        }
    }

    @Test("Ordering words: all-ASCII keys as big-endian words, zero-padded; others not ordered by word")
    func orderingWords() {
        func word(_ key: String) -> UInt64 { Array(key.utf8).withUnsafeBufferPointer(OTLPAttributeKeyOrder.orderingWord) }
        #expect(word("abcdefghij") == 0x6162_6364_6566_6768)
        #expect(word("ab") == 0x6162_0000_0000_0000)
        #expect(word("") == 0)
        #expect(word("abcdefghé") == .max)
        #expect(word("é") == .max)
    }

    @Test("A span's converted attributes come out in key order whatever the dictionary's order")
    func spanAttributes() {
        var attributes = SpanAttributes()
        for key in Self.awkwardKeys { attributes[key] = key }
        let converted = attributes.otlpAttributes
        #expect(converted.map(\.key) == Self.awkwardKeys.sorted())
        #expect(converted.allSatisfy { $0.value == .string($0.key) })
    }

    /// A value that describes itself (a `.stringConvertible` attribute).
    struct Described: CustomStringConvertible, Sendable {
        var description: String
    }

    /// Every kind of Tracing attribute value, with the OTLP value it converts to (written out here, not
    /// converted by the code under test).
    static let valueKinds: [(SpanAttribute, OTLPAttributeValue)] = [
        (.int32(-7), .int(-7)),
        (.int64(1 << 40), .int(1 << 40)),
        (.double(0.25), .double(0.25)),
        (.bool(true), .bool(true)),
        (.string("GET"), .string("GET")),
        (.string("a string longer than fifteen bytes"), .string("a string longer than fifteen bytes")),
        (.int32Array([1, -2]), .array([.int(1), .int(-2)])),
        (.int64Array([]), .array([])),
        (.doubleArray([1.5, -0.5]), .array([.double(1.5), .double(-0.5)])),
        (.boolArray([false, true]), .array([.bool(false), .bool(true)])),
        (.stringArray(["x", "é"]), .array([.string("x"), .string("é")])),
        (.stringConvertible(Described(description: "described")), .string("described")),
        (
            .stringConvertibleArray([Described(description: "one"), Described(description: "two")]),
            .array([.string("one"), .string("two")])
        ),
    ]

    @Test("Converting sorts while inserting: every size, in and past the stack buffer, every value kind, same as a sort after")
    func conversionMatchesSortedReference() {
        let pool = Self.awkwardKeys
        let kinds = Self.valueKinds
        for count in 0...pool.count {
            for start in [0, 5, 17] {
                var attributes = SpanAttributes()
                var expected: [OTLPAttribute] = []
                for offset in 0..<count {
                    let key = pool[(start + offset * 7) % pool.count]
                    let (value, converted) = kinds[(start + offset) % kinds.count]
                    attributes.set(key, value: value)
                    expected.append(OTLPAttribute(key, converted))
                }
                expected.sort { $0.key < $1.key }
                #expect(attributes.otlpAttributes == expected, "\(count) attributes from \(start)")
            }
        }
    }

    @Test("A span's attributes converted and cut to its limits: the first keys in key order, long values cut")
    func conversionUnderLimits() {
        var attributes = SpanAttributes()
        for (index, key) in Self.awkwardKeys.enumerated() { attributes.set(key, value: Self.valueKinds[index % Self.valueKinds.count].0) }
        let limits = OTLPLimits(attributeCountLimit: 5, attributeValueLengthLimit: 4)
        var span = OTLPSpan(traceID: nil, spanID: nil, name: "limited", startTimeUnixNano: 1, endTimeUnixNano: 2)
        OTLPPendingSpanAttributes(attributes: attributes, limits: limits).complete(&span)
        let keys = Self.awkwardKeys.sorted()
        #expect(span.attributes.map(\.key) == Array(keys.prefix(5)))
        #expect(span.droppedAttributesCount == UInt32(keys.count - 5))
        for attribute in span.attributes {
            if case .string(let string) = attribute.value { #expect(string.unicodeScalars.count <= 4) }
        }
    }
}
