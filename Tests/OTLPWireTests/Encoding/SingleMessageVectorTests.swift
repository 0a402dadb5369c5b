import Foundation
import Testing
@testable import OTLPWire

@Suite("Single-message vectors (traces/*.pb, logs/*.pb)")
struct SingleMessageVectorTests {
    static let messages = SharedVectors.entries.filter { $0.framing == "none" && $0.valid }

    @Test("decodes to the reference JSON", arguments: messages)
    func decodesToReferenceJSON(entry: SharedVectors.Entry) throws {
        let bytes = try SharedVectors.bytes(entry.path)
        let json = try ours(bytes, entry.kind)
        let expected = try SemanticJSON.parse(SharedVectors.bytes(entry.json!))
        let actual = try SemanticJSON.parse(json)
        #expect(SemanticJSON.difference(actual, expected) == nil, "\(SemanticJSON.difference(actual, expected) ?? "")")
    }

    @Test("re-encodes to bytes that decode the same (and to identical bytes where canonical)", arguments: messages)
    func reencodes(entry: SharedVectors.Entry) throws {
        let bytes = try SharedVectors.bytes(entry.path)
        let encoder = OTLPEncoder()
        let decoder = OTLPDecoder()
        let again: [UInt8]
        switch entry.kind {
        case .traces:
            let data = try decoder.decodeTraces(bytes)
            again = encoder.encode(data)
            #expect(data.itemCount == entry.items)
        case .logs:
            let data = try decoder.decodeLogs(bytes)
            again = encoder.encode(data)
            #expect(data.itemCount == entry.items)
        case .metrics:
            let data = try decoder.decodeMetrics(bytes)
            again = encoder.encode(data)
            #expect(data.itemCount == entry.items)
        }
        // Compared through JSON: semantic equality, where NaN equals NaN (model == cannot say that).
        #expect(SemanticJSON.equal(try SemanticJSON.parse(ours(again, entry.kind)), try SemanticJSON.parse(ours(bytes, entry.kind))))
        if entry.canonical {
            #expect(again == bytes, "re-encoding differs from the reference encoder's bytes")
        }
    }

    @Test("the JSON parses back to the same content", arguments: messages)
    func jsonRoundTrip(entry: SharedVectors.Entry) throws {
        let expectedJSON = try SharedVectors.bytes(entry.json!)
        let jsonDecoder = OTLPJSONDecoder()
        let json: [UInt8] = try expectedJSON.withUnsafeBytes { buffer in
            switch entry.kind {
            case .traces: OTLPJSONEncoder().encode(try jsonDecoder.decodeTraces(buffer))
            case .logs: OTLPJSONEncoder().encode(try jsonDecoder.decodeLogs(buffer))
            case .metrics: OTLPJSONEncoder().encode(try jsonDecoder.decodeMetrics(buffer))
            }
        }
        let difference = SemanticJSON.difference(try SemanticJSON.parse(json), try SemanticJSON.parse(expectedJSON))
        #expect(difference == nil, "\(difference ?? "")")
    }

    private func ours(_ bytes: [UInt8], _ signal: OTLPSignal) throws -> [UInt8] {
        switch signal {
        case .traces: OTLPJSONEncoder().encode(try OTLPDecoder().decodeTraces(bytes))
        case .logs: OTLPJSONEncoder().encode(try OTLPDecoder().decodeLogs(bytes))
        case .metrics: OTLPJSONEncoder().encode(try OTLPDecoder().decodeMetrics(bytes))
        }
    }
}
