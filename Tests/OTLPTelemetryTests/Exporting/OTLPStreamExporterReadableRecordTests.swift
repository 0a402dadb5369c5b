import Foundation
import Testing
import OTLPWire
import Tracing
@testable import OTLPTelemetry
import OTLPTestSupport

/// The exporter never writes a record that readers with their default limits refuse: a batch that would
/// fail is split, and an item that fails alone is dropped and counted (`item_too_large`); the rest of the
/// batch is exported and reads back.
@Suite("OTLPStreamExporter readable records")
struct OTLPStreamExporterReadableRecordTests {
    static let scope = OTLPInstrumentationScope(name: "readable")
    /// More than the readers' default record size limit, whatever it is.
    static let hugeBytes = max(70_000_000, OTLPDecodingOptions.default.maxRecordBytes + 1)

    static func span(_ index: Int, attributes: [OTLPAttribute] = []) -> OTLPScopedSpan {
        OTLPScopedSpan(
            scope: scope,
            span: OTLPSpan(
                traceID: OTLPTraceID(high: 1, low: UInt64(index + 1)), spanID: OTLPSpanID(UInt64(index + 1)), name: "span-\(index)",
                startTimeUnixNano: 1, endTimeUnixNano: 2, attributes: [OTLPAttribute("index", .int(Int64(index)))] + attributes))
    }

    /// A value nested `depth` arrays deep.
    static func nested(_ depth: Int) -> OTLPAttributeValue {
        var value = OTLPAttributeValue.string("leaf")
        for _ in 0..<depth { value = .array([value]) }
        return value
    }

    func export(
        _ items: [OTLPScopedSpan], framing: OTLPFraming = .u32be, gzip: Bool = false
    )
        -> (sink: OTLPMemorySink, counters: OTLPTelemetryCounters, messages: Messages, result: Bool)
    {
        let sink = OTLPMemorySink()
        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let exporter = OTLPStreamExporter<OTLPScopedSpan>(
            sink: sink, framing: framing, gzip: gzip, resource: OTLPResource(), counters: counters, diagnostics: { messages.add($0) })
        let result = exporter.export(items)
        return (sink, counters, messages, result)
    }

    @Test(
        "a 70 MB attribute among small spans: the small spans are exported and read back, the big one dropped and counted",
        arguments: [OTLPFraming.u32be, .varint, .jsonl])
    func hugeAttribute(framing: OTLPFraming) throws {
        var items = (0..<10).map { Self.span($0) }
        items[6] = Self.span(6, attributes: [OTLPAttribute("payload", .string(String(repeating: "x", count: Self.hugeBytes)))])
        let (sink, counters, messages, result) = export(items, framing: framing)
        #expect(!result)
        let snapshot = counters.snapshot
        #expect(snapshot.spansExported == 9)
        #expect(snapshot.spansDropped == [.itemTooLarge: 1])
        #expect(messages.all.count == 1 && messages.all[0].contains("item_too_large") && messages.all[0].contains("record_too_large"))
        // Default reader options: everything reads back, in order, without the big span.
        let read = spans(try readAll(sink.bytes))
        #expect(read.map(\.name) == (0..<10).filter { $0 != 6 }.map { "span-\($0)" })
        #expect(sink.bytes.count < OTLPDecodingOptions.default.maxRecordBytes)
    }

    @Test(
        "an item with a value nested 5,000 levels deep is dropped (item_too_large) before encoding, on a 512 KiB thread; the rest is exported"
    )
    func deepValueBeforeEncoding() throws {
        var items = (0..<4).map { Self.span($0) }
        items[2] = Self.span(2, attributes: [OTLPAttribute("deep", Self.nested(5_000))])
        // The batch goes through a box this thread empties: the deep value is released here, never on the
        // small thread when it lets go of its closure.
        let box = ResultBox()
        box.batch = items
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            box.value = self.export(box.batch)
            done.signal()
        }
        thread.stackSize = 512 * 1024  // the encoder would recurse 10,000 levels into the value: far past this
        thread.start()
        done.wait()
        box.batch = []
        let (sink, counters, messages, result) = try #require(box.value)
        #expect(!result)
        #expect(counters.snapshot.spansExported == 3 && counters.snapshot.spansDropped == [.itemTooLarge: 1])
        #expect(messages.all.first?.contains("nested deeper than") == true, "\(messages.all)")
        #expect(spans(try readAll(sink.bytes)).map(\.name) == ["span-0", "span-1", "span-3"])
    }

    final class ResultBox: @unchecked Sendable {
        var batch: [OTLPScopedSpan] = []
        var value: (sink: OTLPMemorySink, counters: OTLPTelemetryCounters, messages: Messages, result: Bool)?
    }

    /// Records each write's item count, as a rotating sink keeps them per file.
    final class CountingSink: OTLPItemCountingSink {
        var itemCounts: [Int] = []
        func write(_ bytes: UnsafeRawBufferPointer) throws(OTLPWriteError) { itemCounts.append(-1) }
        func write(_ bytes: UnsafeRawBufferPointer, itemCount: Int) throws(OTLPWriteError) { itemCounts.append(itemCount) }
        func sync() throws(OTLPWriteError) {}
    }

    @Test("the sink is told the items actually written, without the dropped one (what retention later counts)")
    func itemCountWithoutDropped() throws {
        var items = (0..<10).map { Self.span($0) }
        items[3] = Self.span(3, attributes: [OTLPAttribute("deep", Self.nested(OTLPDecodingOptions.default.maxNestingDepth + 1))])
        let sink = CountingSink()
        let exporter = OTLPStreamExporter<OTLPScopedSpan>(
            sink: sink, framing: .u32be, gzip: false, resource: OTLPResource(), counters: OTLPTelemetryCounters(), diagnostics: { _ in })
        #expect(!exporter.export(items))
        #expect(sink.itemCounts == [9])
    }

    @Test("gzip: the same, each batch still one complete member")
    func hugeAttributeGzip() throws {
        var items = (0..<5).map { Self.span($0) }
        items[0] = Self.span(0, attributes: [OTLPAttribute("payload", .bytes([UInt8](repeating: 7, count: Self.hugeBytes)))])
        let (sink, counters, _, _) = export(items, gzip: true)
        #expect(counters.snapshot.spansExported == 4 && counters.snapshot.spansDropped == [.itemTooLarge: 1])
        #expect(spans(try readAll(sink.bytes)).map(\.name) == ["span-1", "span-2", "span-3", "span-4"])
    }

    @Test("not only size: nesting past the readers' limit and too many attributes are caught the same way")
    func otherReaderLimits() throws {
        // Each array is two message levels: past the readers' limit, yet shallow enough for the encoder (values
        // nested past maxEncodableValueNesting are refused before encoding, see deepValueBeforeEncoding).
        let depth = OTLPDecodingOptions.default.maxNestingDepth / 2 + 5
        #expect(depth <= OTLPStreamExporter<OTLPScopedSpan>.maxEncodableValueNesting)
        let attributeCount = OTLPDecodingOptions.default.maxAttributesPerItem + 1
        var items = (0..<8).map { Self.span($0) }
        items[1] = Self.span(1, attributes: [OTLPAttribute("deep", Self.nested(depth))])
        items[5] = Self.span(5, attributes: (0..<attributeCount).map { OTLPAttribute("a\($0)", .int(Int64($0))) })
        let (sink, counters, messages, _) = export(items)
        #expect(counters.snapshot.spansExported == 6 && counters.snapshot.spansDropped == [.itemTooLarge: 2])
        #expect(messages.all.contains { $0.contains("nesting_too_deep") } && messages.all.contains { $0.contains("too_many_attributes") })
        #expect(spans(try readAll(sink.bytes)).map(\.name) == ["span-0", "span-2", "span-3", "span-4", "span-6", "span-7"])
    }

    @Test("gzip: batches of very compressible data still read back with the default inflation ratio limit")
    func compressibleGzip() throws {
        let sink = OTLPMemorySink()
        let counters = OTLPTelemetryCounters()
        let exporter = OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, gzip: true, resource: OTLPResource(), counters: counters)
        // 40 batches of 10 records, each with a 64 KiB body of one letter: 26 MB that deflate squeezes about 1000:1.
        let body = OTLPAttributeValue.string(String(repeating: "a", count: 65_536))
        for batch in 0..<40 {
            let items = (0..<10).map {
                OTLPScopedLogRecord(scope: Self.scope, record: OTLPLogRecord(timeUnixNano: UInt64(batch * 10 + $0 + 1), body: body))
            }
            #expect(exporter.export(items))
        }
        // A normal batch after them is still compressed.
        let normal = (0..<100).map {
            OTLPScopedLogRecord(
                scope: Self.scope, record: OTLPLogRecord(timeUnixNano: UInt64($0 + 1), body: .string("request \($0) served")))
        }
        let plain = OTLPMemorySink()
        OTLPStreamExporter<OTLPScopedLogRecord>(sink: plain, resource: OTLPResource()).export(normal)
        let before = sink.bytes.count
        #expect(exporter.export(normal))
        #expect(sink.bytes.count - before < plain.bytes.count / 2)
        let records = logRecords(try readAll(sink.bytes))
        #expect(records.count == 500 && counters.snapshot.logRecordsExported == 500)
    }

    @Test("a batch of only unreadable items writes nothing and counts each")
    func allUnreadable() {
        let items = (0..<3).map {
            Self.span($0, attributes: [OTLPAttribute("deep", Self.nested(OTLPDecodingOptions.default.maxNestingDepth + 1))])
        }
        let (sink, counters, _, result) = export(items)
        #expect(!result && sink.bytes.isEmpty)
        #expect(counters.snapshot.spansDropped == [.itemTooLarge: 3] && counters.snapshot.spansExported == 0)
    }

    @Test("through the pipeline, the default value length limit (64 Ki) cuts a 70 MB attribute and a 70 MB log body: nothing is lost")
    func defaultValueLengthLimit() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let telemetry = OTLPTelemetry(
            configuration: .init(
                service: .init(name: "readable"),
                traces: .init(path: directory.appendingPathComponent("traces.u32be.bin").path),
                logs: .init(path: directory.appendingPathComponent("logs.u32be.bin").path)))
        let huge = String(repeating: "é", count: Self.hugeBytes / 2)  // 2 bytes per scalar
        for index in 0..<5 {
            let span = telemetry.tracer.startSpan("span-\(index)")
            if index == 2 {
                span.attributes["payload"] = huge
                span.attributes["list"] = ["short", huge]
            }
            span.end()
            telemetry.logEmitter.emit(
                OTLPLogRecord(
                    timeUnixNano: UInt64(index + 1),
                    body: index == 3 ? .keyValueList([OTLPAttribute("text", .string(huge))]) : .string("log \(index)")))
        }
        telemetry.shutdown()
        let snapshot = telemetry.counters.snapshot
        #expect(snapshot.spansExported == 5 && snapshot.logRecordsExported == 5)
        #expect(snapshot.totalSpansDropped == 0 && snapshot.totalLogRecordsDropped == 0)

        let limit = try #require(OTLPLimits().attributeValueLengthLimit)
        let read = spans(try readAll(Array(try Data(contentsOf: directory.appendingPathComponent("traces.u32be.bin")))))
        let cut = try #require(read.first { $0.name == "span-2" })
        let payload = try #require(cut.attributes.first { $0.key == "payload" }?.value)
        #expect(payload == .string(String(repeating: "é", count: limit)))
        #expect(
            cut.attributes.first { $0.key == "list" }?.value == .array([.string("short"), .string(String(repeating: "é", count: limit))]))
        let logs = logRecords(try readAll(Array(try Data(contentsOf: directory.appendingPathComponent("logs.u32be.bin")))))
        #expect(logs.count == 5)
        #expect(logs[3].body == .keyValueList([OTLPAttribute("text", .string(String(repeating: "é", count: limit)))]))
    }

    @Test("a huge service attribute is cut like any value: the resource cannot make every record unreadable")
    func hugeServiceAttribute() throws {
        let sink = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: sink) }
        let path = sink.appendingPathComponent("traces.u32be.bin").path
        let telemetry = OTLPTelemetry(
            configuration: .init(
                service: .init(name: "readable", attributes: ["blob": String(repeating: "b", count: Self.hugeBytes)]),
                traces: .init(path: path)))
        for index in 0..<3 { telemetry.tracer.startSpan("span-\(index)").end() }
        telemetry.shutdown()
        #expect(telemetry.counters.snapshot.spansExported == 3 && telemetry.counters.snapshot.totalSpansDropped == 0)
        let reader = try OTLPRecordReader(path: path)
        let record = try #require(try reader.next())
        guard case .traces(let data) = record.payload else { Issue.record("not traces"); return }
        let blob = data.resourceGroups[0].resource?.attributes.first { $0.key == "blob" }?.value
        #expect(blob == .string(String(repeating: "b", count: OTLPLimits.defaultAttributeValueLength)))
    }

    @Test("service.attributes: more than 1,000 entries is a configuration error")
    func tooManyServiceAttributes() {
        let entries = (0...OTLPTelemetryConfiguration.Service.maxAttributes).map { "\"k\($0)\": \"v\"" }.joined(separator: ", ")
        #expect {
            try OTLPTelemetryConfiguration.load(json: Data("{\"service\": {\"attributes\": {\(entries)}}}".utf8))
        } throws: { ($0 as! OTLPConfigurationError).keyPath == "service.attributes" }
    }

    @Test("the value length limit counts Unicode scalars: one grapheme of a million combining marks is cut too")
    func combiningMarks() {
        let value = OTLPAttributeValue.string("a" + String(repeating: "\u{301}", count: 1_000_000))
        #expect(OTLPLimits.truncate(value, 4) == .string("a\u{301}\u{301}\u{301}"))
        #expect(OTLPLimits.truncate(.string("abc"), 3) == .string("abc"))
        #expect(OTLPLimits.truncate(.bytes([1, 2, 3]), 0) == .bytes([]))
    }
}
