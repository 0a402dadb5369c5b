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
}
