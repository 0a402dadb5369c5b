import Foundation
import Testing
@testable import OTLPMetricKit

/// Inputs the fuzzer (scripts/fuzz.sh FuzzMetricKit) found crashing, replayed: each must now be converted or
/// refused with an error, never crash.
@Suite("MetricKit fuzz regressions")
struct FuzzRegressionTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("FailCases")
    static let cases = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()

    @Test("every committed fail case converts or is refused", arguments: cases)
    func replay(name: String) throws {
        let bytes = Array(try Data(contentsOf: Self.directory.appendingPathComponent(name)))
        let converter = MetricKitConverter()
        _ = try? converter.convertMetricPayload(json: bytes)
        _ = try? converter.convertDiagnosticPayload(json: bytes)
    }

    @Test("regression: a timestamp with an absurd year is refused, not an arithmetic overflow")
    func absurdYear() {
        #expect(MetricKitTimestamp.unixNano("99999999999999-01-01 00:00:00") == nil)
        #expect(MetricKitTimestamp.unixNano("1969-12-31 23:59:59") == nil)
        #expect(MetricKitTimestamp.unixNano("2500-12-31 23:59:59") != nil)
        #expect(throws: MetricKitConversionError.self) {
            try MetricKitConverter().convertMetricPayload(json: Array(#"{"timeStampBegin": "9223372036854775807-01-01 00:00:00"}"#.utf8))
        }
    }

    @Test("the fail cases folder is not empty (the fuzzer's findings are kept)")
    func kept() { #expect(!Self.cases.isEmpty) }
}
