import Foundation
import Testing
@testable import OTLPWire

/// Binary files whose first byte is `{` (a varint record of 123 bytes) or that start `0a 7b` (a bare request
/// whose first envelope is 123 bytes; 0x0A looks like a blank line) are read in their framing, not as JSON.
@Suite("Binary input that starts like JSON")
struct BinaryThatStartsLikeJSONTests {
    static let regressions = SharedVectors.root.deletingLastPathComponent().appendingPathComponent("regressions")

    @Test(
        "detected from content, from a file without a telling name and from a pipe",
        arguments: [
            ("varint-first-record-123-bytes.bin", OTLPFraming.varint, OTLPSignal.traces, 2),
            ("bare-traces-envelope-123-bytes.bin", .unframed, .traces, 1),
            ("bare-logs-envelope-123-bytes.bin", .unframed, .logs, 1),
        ])
    func detected(name: String, framing: OTLPFraming, signal: OTLPSignal, items: Int) throws {
        let bytes = Array(try Data(contentsOf: Self.regressions.appendingPathComponent(name)))
        #expect(bytes.first(where: { $0 != 0x0A }) == UInt8(ascii: "{"))
        for outcome in [StreamInputs.read(bytes), StreamInputs.read(StreamInputs.pipe(bytes).source)] {
            #expect(outcome.error == nil, "\(String(describing: outcome.error))")
            #expect(outcome.records.reduce(0) { $0 + $1.payload.itemCount } == items)
            #expect(outcome.records.first?.payload.signal == signal)
        }
        let reader = try OTLPRecordReader(source: OTLPMemorySource(bytes))
        #expect(reader.framing == framing)
    }
}
