import Foundation
import Testing
import OTLPTesting
import OTLPWire
@testable import OTLPMetricKit

/// Docs/MetricKitAttributes.md lists every attribute the converter emits for the samples.
@Suite("Attribute document")
struct AttributeDocumentTests {
    static let document: String = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Docs/MetricKitAttributes.md")
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }()

    /// Whether `key` is named in the document, directly or through a `…_p50`-style suffix list.
    static func documented(_ key: String) -> Bool {
        if document.contains("`\(key)`") { return true }
        for suffix in ["_average", "_p50", "_p90", "_p99", "_count", "_standard_deviation", "_sample_count"] where key.hasSuffix(suffix) {
            let base = String(key.dropLast(suffix.count))
            if document.contains("`\(base)_average`") || document.contains("`\(base)_average`, `_") { return true }
        }
        // Lists like `metrickit.disk_space_usage.binary_file_size`, `data_file_size` name the tail only.
        if let dot = key.lastIndex(of: "."), document.contains("`\(key[key.index(after: dot)...])`") { return true }
        return false
    }

    @Test("every emitted attribute key is documented")
    func complete() throws {
        let converter = MetricKitConverter(idGenerator: OTLPSequentialIDGenerator())
        var keys = Set<String>()
        for name in ["metric-full.json", "metric-legacy-minimal.json"] {
            for span in try converter.convertMetricPayload(json: MetricKitConverterTests.sample(name)) {
                keys.formUnion(span.attributes.map(\.key))
            }
        }
        let diagnostics = try converter.convertDiagnosticPayload(json: MetricKitConverterTests.sample("diagnostic-all-kinds.json"))
        keys.formUnion(diagnostics.span.attributes.map(\.key))
        for record in diagnostics.logRecords { keys.formUnion(record.attributes.map(\.key)) }
        // Attributes only edge cases produce: skipped values, a stack tree cut between frames.
        let deep = try converter.convertDiagnosticPayload(json: Array(MetricKitHostileInputTests.crashPayload(frames: 1_000).utf8))
        let odd = try converter.convertDiagnosticPayload(
            json: Array(#"{"timeStampBegin": "2025-06-03 09:14:00", "crashDiagnostics": [{"diagnosticMetaData": {"signal": "x"}}]}"#.utf8))
        for record in deep.logRecords + odd.logRecords { keys.formUnion(record.attributes.map(\.key)) }
        keys.formUnion(odd.span.attributes.map(\.key))
        #expect(
            keys.contains("metrickit.skipped_value_count")
                && keys.contains("metrickit.diagnostic.crash.exception.stacktrace_json_omitted_frames"))
        let missing = keys.filter { !Self.documented($0) }.sorted()
        #expect(missing.isEmpty, "not in Docs/MetricKitAttributes.md: \(missing)")
        #expect(keys.count > 80)
    }
}
