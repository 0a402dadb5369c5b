import Foundation
import Testing
@testable import OTLPWire

@Suite("Every manifest entry through OTLPRecordReader")
struct ManifestVectorTests {
    struct Outcome {
        var records = 0
        var items = 0
        var error: OTLPReadError?
        var jsonLines: [[UInt8]] = []
    }

    static func read(_ entry: SharedVectors.Entry, framing: OTLPFraming?, signal: OTLPSignal?) -> Outcome {
        var outcome = Outcome()
        do {
            let reader = try OTLPRecordReader(
                path: entry.url.path, options: OTLPReaderOptions(framing: framing, signal: signal, chunkSize: 4096))
            while let record = try reader.next() {
                outcome.records += 1
                outcome.items += record.payload.itemCount
                outcome.jsonLines.append(OTLPJSONEncoder().encode(record.payload))
            }
        } catch {
            outcome.error = error
        }
        return outcome
    }

    static func declaredFraming(_ entry: SharedVectors.Entry) -> OTLPFraming { OTLPFraming(rawValue: entry.framing)! }

    static func check(_ entry: SharedVectors.Entry, _ outcome: Outcome) throws {
        let expect = entry.expect
        if expect["outcome"] as! String == "ok" {
            #expect(outcome.error == nil, "\(entry.path): \(String(describing: outcome.error))")
            #expect(outcome.records == entry.records)
            #expect(outcome.items == entry.items)
            if let json = entry.json, json.hasSuffix(".jsonl") {
                let lines = try SharedVectors.bytes(json).split(separator: 0x0A, omittingEmptySubsequences: true)
                #expect(lines.count == outcome.jsonLines.count)
                for (index, (line, ours)) in zip(lines, outcome.jsonLines).enumerated() {
                    let difference = SemanticJSON.difference(try SemanticJSON.parse(ours), try SemanticJSON.parse(Array(line)))
                    #expect(difference == nil, "record \(index): \(difference ?? "")")
                }
            }
            return
        }
        let error = try #require(outcome.error, "\(entry.path) read without error")
        let classes = [expect["error_class"] as! String] + (expect["also_acceptable"] as? [String] ?? [])
        #expect(classes.contains(error.code.description), "\(entry.path): got \(error)")
        let readable = expect["records_readable_before_error"] as! Int
        let minimum = expect["records_readable_before_error_min"] as? Int ?? readable
        #expect((minimum...readable).contains(outcome.records), "\(entry.path): \(outcome.records) records before the error")
        if outcome.records == readable {
            let items = (expect["spans_readable_before_error"] ?? expect["log_records_readable_before_error"]) as! Int
            #expect(outcome.items == items)
        }
        #expect(error.recordIndex == outcome.records, "record index \(String(describing: error.recordIndex))")
        if error.code.description == expect["error_class"] as! String {
            #expect(error.byteOffset == expect["error_offset"] as? Int, "\(entry.path): \(error)")
            #expect(error.offsetIn.rawValue == expect["error_offset_in"] as! String)
        }
    }

    @Test("declared framing and signal", arguments: SharedVectors.entries)
    func declared(entry: SharedVectors.Entry) throws {
        try Self.check(entry, Self.read(entry, framing: Self.declaredFraming(entry), signal: entry.kind))
    }

    @Test("framing and signal detected", arguments: SharedVectors.entries)
    func detected(entry: SharedVectors.Entry) throws {
        // Files whose declared signal is the point of the test are read with that signal given.
        let signal: OTLPSignal? = entry.path.contains("declared") ? entry.kind : nil
        try Self.check(entry, Self.read(entry, framing: nil, signal: signal))
    }

    @Test(
        "expected JSON lines read back through the JSON lines reader",
        arguments: SharedVectors.entries.filter { $0.json?.hasSuffix(".jsonl") == true })
    func jsonLines(entry: SharedVectors.Entry) throws {
        let reader = try OTLPRecordReader(path: SharedVectors.root.appendingPathComponent(entry.json!).path)
        #expect(reader.framing == .jsonl)
        var items = 0
        var records = 0
        while let record = try reader.next() {
            records += 1
            items += record.payload.itemCount
        }
        #expect(records == entry.records)
        #expect(items == entry.items)
    }
}
