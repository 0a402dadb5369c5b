import Foundation
import Testing
@testable import OTLPWire

@Suite("Framing and signal detection from content alone")
struct FramingDetectionTests {
    static let valid = SharedVectors.entries.filter { $0.valid && $0.records > 0 }

    @Test("valid vectors read from memory with no file name", arguments: valid)
    func contentOnly(entry: SharedVectors.Entry) throws {
        let reader = try OTLPRecordReader(source: OTLPMemorySource(try SharedVectors.bytes(entry.path)))
        #expect(reader.framing == OTLPFraming(rawValue: entry.framing), "detected \(reader.framing)")
        #expect(reader.isCompressed == (entry.compression != "none"))
        var records = 0
        var items = 0
        while let record = try reader.next() {
            records += 1
            items += record.payload.itemCount
            #expect(record.payload.signal == entry.kind)
        }
        #expect(records == entry.records)
        #expect(items == entry.items)
    }

    @Test("a .pb file name means one bare message (regression: `.none` read as Optional.none)")
    func pbFileNameMeansUnframed() {
        #expect(OTLPFraming.fromFileName("dir/random-bytes.pb") == .unframed)
        #expect(OTLPFraming.fromFileName("x.binpb") == .unframed)
        #expect(OTLPFraming.fromFileName("x.u32be.bin.gz") == .u32be)
        #expect(OTLPFraming.fromFileName("x.varint.bin") == .varint)
        #expect(OTLPFraming.fromFileName("x.jsonl.gz") == .jsonl)
        #expect(OTLPFraming.fromFileName("x.bin") == nil)
    }

    @Test("empty input is zero records of any framing")
    func emptyInput() throws {
        let reader = try OTLPRecordReader(source: OTLPMemorySource([]))
        #expect(try reader.next() == nil)
    }
}

@Suite("Faults inside the detection sample")
struct DetectionSampleFaultTests {
    static let damagedGzip = SharedVectors.entries.filter { !$0.valid && $0.compression != "none" }

    @Test("regression: a gzip fault met while sniffing the framing comes after the records before it", arguments: damagedGzip)
    func faultAfterRecords(entry: SharedVectors.Entry) throws {
        let reader = try OTLPRecordReader(
            source: OTLPMemorySource(try SharedVectors.bytes(entry.path)), options: OTLPReaderOptions(signal: entry.kind))
        var records = 0
        var failure: OTLPReadError?
        do {
            while try reader.next() != nil { records += 1 }
        } catch {
            failure = error
        }
        #expect(failure?.code.description == entry.expect["error_class"] as? String)
        #expect(records == entry.expect["records_readable_before_error"] as? Int)
        #expect(failure?.recordIndex == records)
    }
}

@Suite("A single pretty-printed JSON request")
struct JSONDocumentTests {
    static let documents = SharedVectors.entries.filter { $0.framing == "none" && $0.valid }

    @Test("reads the vectors' .json files as one record each", arguments: documents)
    func prettyPrinted(entry: SharedVectors.Entry) throws {
        let reader = try OTLPRecordReader(path: SharedVectors.root.appendingPathComponent(entry.json!).path)
        let record = try #require(try reader.next())
        #expect(record.payload.signal == entry.kind)
        #expect(record.payload.itemCount == entry.items)
        #expect(try reader.next() == nil)
    }
}
