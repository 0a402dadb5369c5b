import Foundation
import OTLPTesting
import OTLPWire
import OTLPTestSupport
import Testing
import Tracing

@testable import OTLPTelemetry

#if canImport(Glibc)
import Glibc
#endif

/// The open-span journal in one process: what is written, what a next start recovers, and hostile files.
@Suite("Open-span journal")
struct OTLPSpanJournalTests {
    static let resource = OTLPResource(attributes: [OTLPAttribute("service.name", "journaled"), OTLPAttribute("process.pid", .int(41))])
    static let scope = OTLPInstrumentationScope(name: "test.launch")

    /// A journal in `directory` with a tracer journaling through it; exported spans go to `exported`, unless
    /// `exports` is false (the exporter then takes nothing: spans stay in the journal).
    struct Writer {
        let journal: OTLPSpanJournal
        let tracer: OTLPTracer
        let sink = ControllableSink()

        init(
            directory: String, clock: OTLPManualClock, exports: Bool = true, settings: OTLPSpanJournal.Settings = .default,
            durability: OTLPDurability = .flush, diagnostics: @escaping @Sendable (String) -> Void = { _ in }
        ) throws {
            journal = OTLPSpanJournal(
                resource: OTLPSpanJournalTests.resource, durability: durability, clock: clock, settings: settings, diagnostics: diagnostics)
            _ = try journal.open(directory: directory)
            if !exports { sink.failure = .system("the exporter refuses", errno: EIO) }
            let counters = OTLPTelemetryCounters()
            let exporter = OTLPStreamExporter<OTLPScopedSpan>(
                sink: sink, framing: .u32be, gzip: false, durability: .flush, resource: OTLPSpanJournalTests.resource,
                counters: counters, diagnostics: { _ in })
            tracer = OTLPTracer(
                stage: OTLPSimpleStage(exporter: exporter, counters: counters), scope: OTLPSpanJournalTests.scope,
                idGenerator: OTLPSequentialIDGenerator(), clock: clock, journal: journal
            ).journaling(interruptedAttribute: "launch.interrupted")
        }

        func start(_ name: String, at clock: OTLPManualClock, parent: OTLPTracingSpan? = nil) -> OTLPTracingSpan {
            let span = tracer.startSpan(
                name, context: parent?.context ?? .topLevel, ofKind: .internal,
                at: DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: clock.nowUnixNano()))
            span.attributes["session.id"] = "0123456789abcdef0123456789abcdef"
            span.journalCheckpoint()
            return span
        }

        func end(_ span: OTLPTracingSpan, at clock: OTLPManualClock) {
            span.end(at: DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: clock.nowUnixNano()))
        }
    }

    static func recover(
        _ directory: String, clock: OTLPManualClock, settings: OTLPSpanJournal.Settings = .default, messages: Messages = Messages(),
        durableDestinations: Int = 0
    )
        throws -> (OTLPSpanJournalRecovery, [OTLPScopedSpan], OTLPSpanJournal)
    {
        let journal = OTLPSpanJournal(
            resource: OTLPResource(), durability: .flush, clock: clock, settings: settings, diagnostics: messages.add)
        let (recovery, spans) = try journal.open(directory: directory, durableDestinations: durableDestinations)
        return (recovery, spans, journal)
    }

    static func framed(_ record: OTLPSpanJournalRecord) -> [UInt8] {
        let encoded = OTLPEncoder().encode(record.request)
        var bytes: [UInt8] = []
        _ = OTLPLengthPrefix.encode(encoded.count, framing: .u32be, into: &bytes)
        return bytes + encoded
    }

    static func startedRecord(_ name: String, spanID: UInt64, at time: UInt64, version: Int64? = nil) -> OTLPSpanJournalRecord {
        OTLPSpanJournalRecord(
            kind: .started, writtenUnixNano: time, resource: resource,
            scopedSpan: (
                scope,
                OTLPSpan(
                    traceID: OTLPTraceID(high: 1, low: 1), spanID: OTLPSpanID(spanID), name: name, startTimeUnixNano: time,
                    endTimeUnixNano: 0)
            ), interruptedAttribute: "launch.interrupted")
    }

    @Test("a crash: ended spans come back as they ended, the open one ended at the heartbeat, ERROR, interrupted; exported ones not again")
    func recoversWhatWasNotExported() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = OTLPManualClock()
        let start = clock.nowUnixNano()
        do {
            let exporting = try Writer(directory: directory.path, clock: clock)
            let exported = exporting.start("launch.exported", at: clock)
            clock.advance(seconds: 0.01)
            exporting.end(exported, at: clock)
            #expect(exporting.journal.heldSpans == 0, "the exporter took it: the journal forgets it")
            exporting.journal.close()
        }
        let heartbeat: UInt64
        do {
            let writer = try Writer(directory: directory.path, clock: clock, exports: false)
            let root = writer.start("AppStart", at: clock)
            let phase = writer.start("launch.phase", at: clock, parent: root)
            clock.advance(seconds: 0.02)
            writer.end(phase, at: clock)
            _ = writer.start("launch.open", at: clock, parent: root)
            clock.advance(seconds: 3)
            writer.journal.heartbeat()  // something was written since the last heartbeat: nothing to add
            writer.journal.heartbeat()
            heartbeat = clock.nowUnixNano()
            #expect(writer.journal.heldSpans == 3)
            // The process dies: nothing more is written, the lock goes with it.
        }
        clock.advance(seconds: 60)
        let messages = Messages()
        let (recovery, spans, journal) = try Self.recover(directory.path, clock: clock, messages: messages)
        #expect(recovery.skippedRecords == 0 && recovery.expiredSpans == 0 && recovery.setAsidePath == nil)
        #expect(spans.map(\.span.name) == ["AppStart", "launch.phase", "launch.open"])
        let recovered = Dictionary(uniqueKeysWithValues: spans.map { ($0.span.name, $0) })
        let ended = try #require(recovered["launch.phase"]).span
        #expect(ended.status == nil && ended.endTimeUnixNano == start + 30_000_000)
        #expect(!ended.attributes.contains { $0.key == "launch.interrupted" })
        for name in ["AppStart", "launch.open"] {
            let span = try #require(recovered[name]).span
            #expect(span.endTimeUnixNano == heartbeat, "\(name) ends at the heartbeat")
            #expect(span.status == OTLPSpanStatus(code: .error, message: "the process ended before the span ended"))
            #expect(span.attributes.contains(OTLPAttribute("launch.interrupted", .bool(true))))
            #expect(span.attributes.contains(OTLPAttribute("session.id", "0123456789abcdef0123456789abcdef")))
        }
        #expect(spans.allSatisfy { $0.journalTag?.resource == Self.resource && $0.scope == Self.scope })
        #expect(recovered["launch.open"]?.span.parentSpanID == recovered["AppStart"]?.span.spanID)
        // Exported now: the journal forgets them, and a clean close leaves no file.
        journal.exported(spans)
        #expect(journal.heldSpans == 0)
        journal.close()
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("open-spans.u32be.bin").path))
        let (again, _, last) = try Self.recover(directory.path, clock: clock)
        #expect(again == .empty)
        last.close()
    }

    @Test(
        "spans in batches the callers render (the worker far behind) are acknowledged once written: nothing stays held, nothing would come back after a kill"
    )
    func renderedBatchesAreAcknowledged() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = OTLPManualClock()
        let journal = OTLPSpanJournal(resource: Self.resource, durability: .flush, clock: clock, diagnostics: { _ in })
        _ = try journal.open(directory: directory.path)
        let sink = ControllableSink()
        let counters = OTLPTelemetryCounters()
        let stage = OTLPBatchStage(
            exporter: OTLPStreamExporter<OTLPScopedSpan>(sink: sink, resource: Self.resource, counters: counters),
            counters: counters, configuration: .init(maxQueueSize: 16, maxExportBatchSize: 4, scheduleDelaySeconds: 3600))
        let tracer = OTLPTracer(
            stage: stage, scope: Self.scope, idGenerator: OTLPSequentialIDGenerator(), clock: clock, journal: journal
        ).journaled()
        sink.hold()  // the worker's first write waits: the queue fills up behind it, and callers render
        for index in 0..<40 {
            let span = tracer.startSpan("span \(index)")
            span.end()
        }
        #expect(stage.callerRenderedBatchCount >= 1)
        sink.release()
        #expect(stage.forceFlush())
        let snapshot = counters.snapshot
        #expect(snapshot.spansExported + snapshot.totalSpansDropped == 40)
        #expect(snapshot.spansExported > 0)
        // Every span the exporter wrote is forgotten (regression: rendered batches were never acknowledged); those
        // dropped from the full queue stay, for the next start.
        #expect(journal.heldSpans == snapshot.totalSpansDropped, "\(snapshot)")
        stage.shutdown()
        journal.close()
    }

    @Test(
        "regression: with two durable destinations (a file output and a spool), a span is forgotten once both took it; killed after the first took it, the next start has it again (the first one's acknowledgement forgot it for the second)"
    )
    func twoDurableDestinations() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = OTLPManualClock()
        do {
            let writer = try Writer(directory: directory.path, clock: clock, exports: false)
            let span = writer.start("launch.phase", at: clock)
            clock.advance(seconds: 0.01)
            writer.end(span, at: clock)
            #expect(writer.journal.heldSpans == 1)
            // The process dies.
        }
        do {
            let (_, spans, journal) = try Self.recover(directory.path, clock: clock, durableDestinations: 2)
            #expect(spans.map(\.span.name) == ["launch.phase"])
            journal.exported(spans, durable: false)  // a collector without a spool: not one of the two
            #expect(journal.heldSpans == 1)
            journal.exported(spans, durable: true)  // the file output took it
            #expect(journal.heldSpans == 1, "the spool has not taken it yet")
            // Killed before the spool took it.
        }
        do {
            let (_, spans, journal) = try Self.recover(directory.path, clock: clock, durableDestinations: 2)
            #expect(spans.map(\.span.name) == ["launch.phase"], "not lost for the spool")
            journal.exported(spans, durable: true)
            journal.exported(spans, durable: true)
            #expect(journal.heldSpans == 0)
            journal.close()
        }
        let (again, spans, journal) = try Self.recover(directory.path, clock: clock, durableDestinations: 1)
        #expect(again == .empty && spans.isEmpty)
        journal.close()
    }

    @Test(
        "a recovered span that the file output holds already (the previous export reached it, not the spool) is not written to the file again: counted exported there, acknowledged, and still owed to the other destination"
    )
    func heldByOneDestinationIsSkippedThere() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = OTLPManualClock()
        let journal = OTLPSpanJournal(resource: Self.resource, durability: .flush, clock: clock, diagnostics: { _ in })
        _ = try journal.open(directory: directory.path, durableDestinations: 2)
        func span(_ name: String, _ id: UInt64) -> OTLPScopedSpan {
            OTLPScopedSpan(
                scope: Self.scope,
                span: OTLPSpan(
                    traceID: OTLPTraceID(high: 1, low: 1), spanID: OTLPSpanID(id), name: name, startTimeUnixNano: 1, endTimeUnixNano: 2))
        }
        var held = span("held by the file", 1)
        #expect(journal.started(held, interruptedAttribute: nil))
        held.journalTag = OTLPSpanJournalTag(journal: journal, resource: nil, heldBy: [.file])
        let counters = OTLPTelemetryCounters()
        let path = directory.appendingPathComponent("traces.u32be.bin").path
        let sink = OTLPRotatingFileSink(path: path, rotation: .default, signal: .traces, counters: counters)
        try sink.open()
        let stage = OTLPBatchStage(
            exporter: OTLPStreamExporter<OTLPScopedSpan>(
                sink: sink, framing: .u32be, gzip: false, durability: .flush, resource: Self.resource, counters: counters,
                diagnostics: { _ in }),
            counters: counters, configuration: .init(scheduleDelaySeconds: 3600))
        stage.onEnd(held)
        stage.onEnd(span("new", 2))
        #expect(stage.forceFlush())
        stage.shutdown()
        let names = try readAll([UInt8](Data(contentsOf: URL(fileURLWithPath: path)))).flatMap { payload -> [String] in
            guard case .traces(let data) = payload else { return [] }
            return data.resourceGroups.flatMap(\.scopeGroups).flatMap(\.items).map(\.name)
        }
        #expect(names == ["new"])
        #expect(counters.snapshot.spansReceived == 2 && counters.snapshot.spansExported == 2, "\(counters.snapshot)")
        #expect(journal.heldSpans == 1, "the file's acknowledgement counted; the spool's is still owed")
        journal.exported([held], durable: true)  // the spool took it
        #expect(journal.heldSpans == 0)
        journal.close()
    }

    @Test("with one durable destination, its acknowledgement forgets a span, another exporter's does not")
    func oneDurableDestination() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = OTLPManualClock()
        do {
            let writer = try Writer(directory: directory.path, clock: clock, exports: false)
            writer.end(writer.start("launch.phase", at: clock), at: clock)
        }
        let (_, spans, journal) = try Self.recover(directory.path, clock: clock, durableDestinations: 1)
        journal.exported(spans, durable: false)
        #expect(journal.heldSpans == 1)
        journal.exported(spans, durable: true)
        #expect(journal.heldSpans == 0)
        journal.close()
    }

    @Test("recovered and not exported again (a second crash): recovered once more, as they were")
    func recoveredSpansStayUntilExported() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = OTLPManualClock()
        do {
            let writer = try Writer(directory: directory.path, clock: clock, exports: false)
            _ = writer.start("AppStart", at: clock)
        }
        clock.advance(seconds: 1)
        let (first, _, _) = try Self.recover(directory.path, clock: clock)
        let (second, _, journal) = try Self.recover(directory.path, clock: clock)
        #expect(first.spans.count == 1)
        #expect(second.spans == first.spans)
        journal.close()
    }

    @Test("a clean shutdown: the journal file is removed and nothing is recovered; spans of tracers that do not journal never reach it")
    func cleanShutdown() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let messages = Messages()
        let telemetry = OTLPTelemetry(
            configuration: .init(traces: .init(path: directory.appendingPathComponent("traces.u32be.bin").path)), diagnostics: messages.add)
        let recovery = try telemetry.openSpanJournal(directory: directory.appendingPathComponent("state").path)
        #expect(recovery == .empty)
        let plain = telemetry.tracer.startSpan("plain")
        #expect(telemetry.spanJournal.heldSpans == 0)
        plain.end()
        let journaled = telemetry.tracer.journaled().startSpan("journaled")
        #expect(telemetry.spanJournal.heldSpans == 1)
        journaled.end()
        telemetry.shutdown()
        #expect(messages.all.isEmpty, "\(messages.all)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("state").path).isEmpty)
        let next = OTLPTelemetry(configuration: .init(traces: .init(path: directory.appendingPathComponent("next.u32be.bin").path)))
        #expect(try next.openSpanJournal(directory: directory.appendingPathComponent("state").path) == .empty)
        next.shutdown()
    }

    @Test("the next pipeline exports recovered spans first, under the resource they were made under")
    func exportsFirstUnderTheirResource() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = OTLPManualClock()
        do {
            let writer = try Writer(directory: directory.path, clock: clock, exports: false)
            _ = writer.start("AppStart", at: clock)
        }
        clock.advance(seconds: 1)
        let path = directory.appendingPathComponent("traces.u32be.bin").path
        let telemetry = OTLPTelemetry(
            configuration: .init(traces: .init(path: path)), resource: OTLPResource(attributes: [OTLPAttribute("service.name", "next")]),
            clock: clock)
        let recovery = try telemetry.openSpanJournal(directory: directory.path)
        #expect(recovery.spans.map(\.name) == ["AppStart"])
        telemetry.tracer.startSpan("own").end()
        telemetry.shutdown()
        let reader = try OTLPRecordReader(path: path)
        var groups: [(String?, [String])] = []
        while let record = try reader.next() {
            guard case .traces(let data) = record.payload else { continue }
            for group in data.resourceGroups {
                let name = group.resource?.attributes.first { $0.key == "service.name" }.flatMap { attribute -> String? in
                    if case .string(let value)? = attribute.value { return value }
                    return nil
                }
                groups.append((name, group.scopeGroups.flatMap(\.items).map(\.name)))
            }
        }
        #expect(groups.map(\.0) == ["journaled", "next"])
        #expect(groups.map(\.1) == [["AppStart"], ["own"]])
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("open-spans.u32be.bin").path))
    }

    @Test("one process per directory: a second journal on the same directory is refused (EWOULDBLOCK), naming the holder")
    func oneHolder() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = OTLPManualClock()
        let (_, _, first) = try Self.recover(directory.path, clock: clock)
        #expect(throws: OTLPWriteError.self) { try Self.recover(directory.path, clock: clock) }
        do {
            _ = try Self.recover(directory.path, clock: clock)
        } catch let error as OTLPWriteError {
            #expect(error.errno == EWOULDBLOCK)
            #expect("\(error)".contains("another sink in this process"))
        }
        first.close()
        let (_, _, second) = try Self.recover(directory.path, clock: clock)
        second.close()
    }

    @Test("the heartbeat is refreshed only while spans are open and only when nothing else was written")
    func heartbeat() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = OTLPManualClock()
        let writer = try Writer(directory: directory.path, clock: clock, exports: true)
        let opened = writer.journal.fileSizeBytes  // the resource record
        writer.journal.heartbeat()
        #expect(writer.journal.fileSizeBytes == opened, "nothing open: no heartbeat")
        let span = writer.start("AppStart", at: clock)
        let afterStart = writer.journal.fileSizeBytes
        writer.journal.heartbeat()
        #expect(writer.journal.fileSizeBytes == afterStart, "a write since the last heartbeat is one")
        writer.journal.heartbeat()
        #expect(writer.journal.fileSizeBytes > afterStart, "nothing written since: an alive record")
        writer.end(span, at: clock)
        writer.journal.close()
    }

    @Test("a clock set back between the runs: nothing expires, and an interrupted span ends at its heartbeat, never before its start")
    func clockSetBack() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = OTLPManualClock()
        let start = clock.nowUnixNano()
        do {
            let writer = try Writer(directory: directory.path, clock: clock, exports: false)
            _ = writer.start("AppStart", at: clock)
            clock.advance(seconds: 2)
            writer.journal.heartbeat()
            writer.journal.heartbeat()
        }
        let heartbeat = clock.nowUnixNano()
        let earlier = OTLPManualClock(clock.nowUnixNano() - 30 * 86_400 * 1_000_000_000)
        let (recovery, _, journal) = try Self.recover(directory.path, clock: earlier)
        #expect(recovery.expiredSpans == 0)
        #expect(recovery.spans.map(\.endTimeUnixNano) == [heartbeat])
        #expect(recovery.spans.map(\.startTimeUnixNano) == [start])
        journal.close()
    }

    @Test("a journal whose heartbeat is older than the age bound is not recovered, and says so")
    func expired() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = OTLPManualClock()
        do {
            let writer = try Writer(directory: directory.path, clock: clock, exports: false)
            _ = writer.start("AppStart", at: clock)
        }
        clock.advance(seconds: 8 * 86_400)
        let messages = Messages()
        let (recovery, spans, journal) = try Self.recover(directory.path, clock: clock, messages: messages)
        #expect(recovery.expiredSpans == 1 && spans.isEmpty)
        #expect(messages.all.contains { $0.contains("not recovered") })
        journal.close()
    }

    @Test("bounded: compacted when it would pass its size, and new spans refused (counted) when the open ones fill half of it")
    func bounded() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = OTLPManualClock()
        var settings = OTLPSpanJournal.Settings()
        settings.maxFileBytes = 16 << 10
        let writer = try Writer(directory: directory.path, clock: clock, settings: settings)
        for _ in 0..<500 { writer.end(writer.start("ended", at: clock), at: clock) }
        #expect(writer.journal.fileSizeBytes <= settings.maxFileBytes)
        var open: [OTLPTracingSpan] = []
        for _ in 0..<500 { open.append(writer.start("open", at: clock)) }
        #expect(writer.journal.refusedSpans > 0)
        #expect(writer.journal.heldSpans < 500)
        let size = try #require(
            try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("open-spans.u32be.bin").path)[.size] as? Int)
        #expect(size <= settings.maxFileBytes + 1024)
        for span in open { writer.end(span, at: clock) }
        #expect(writer.journal.heldSpans == 0)
        // The bytes held (a running total) went back down with the spans: a new span is journaled again.
        let refused = writer.journal.refusedSpans
        let again = writer.start("again", at: clock)
        #expect(writer.journal.refusedSpans == refused && writer.journal.heldSpans == 1)
        writer.end(again, at: clock)
        writer.journal.close()
    }

    @Test(
        "regression: a compaction keeps the write-ahead intents of the spans it keeps (it dropped them, and the next start exported a span in doubt again where it already was)"
    )
    func compactionKeepsIntents() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = OTLPManualClock()
        var settings = OTLPSpanJournal.Settings()
        settings.maxFileBytes = 16 << 10
        let destination = OTLPExportDestination(
            kind: .spool, path: "/spool/traces", fileNumber: 7, offsetBytes: 128, lengthBytes: 4096, checksum: 0xDEAD_BEEF)
        do {
            let writer = try Writer(directory: directory.path, clock: clock, settings: settings)
            let doubt = OTLPScopedSpan(
                scope: Self.scope,
                span: OTLPSpan(
                    traceID: OTLPTraceID(high: 9, low: 9), spanID: OTLPSpanID(99), name: "in doubt", startTimeUnixNano: 1,
                    endTimeUnixNano: 2))
            #expect(writer.journal.started(doubt, interruptedAttribute: nil))
            writer.journal.exporting([doubt], to: destination)
            let sizeBefore = writer.journal.fileSizeBytes
            for _ in 0..<500 { writer.end(writer.start("ended", at: clock), at: clock) }
            #expect(writer.journal.fileSizeBytes < sizeBefore + 500 * 100, "compacted on the way")
            #expect(writer.journal.heldSpans == 1)
            // The process dies.
        }
        let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent("open-spans.u32be.bin")))
        let content = OTLPSpanJournalContent(bytes: bytes, maxRecordBytes: settings.maxRecordBytes)
        let held = try #require(content.held.first { $0.span.name == "in doubt" })
        #expect(held.destinations == [destination])
    }

    /// A span of `Self.scope` with `attributes` not yet converted (as `OTLPTracingSpan` hands it on).
    static func pendingSpan(_ name: String, spanID: UInt64, end: UInt64, _ attributes: SpanAttributes, limits: OTLPLimits) -> OTLPScopedSpan
    {
        OTLPScopedSpan(
            scope: scope,
            span: OTLPSpan(
                traceID: OTLPTraceID(high: 1, low: 1), spanID: OTLPSpanID(spanID), name: name, startTimeUnixNano: 10, endTimeUnixNano: end),
            pendingAttributes: OTLPPendingSpanAttributes(attributes: attributes, limits: limits.clamped))
    }

    @Test(
        "attributes are journaled straight from the span, as the conversion makes them, without converting it; a value the conversion would change converts the span once, for the journal and the pipeline"
    )
    func attributesStraightFromTheSpan() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = OTLPManualClock()
        var simple = SpanAttributes()
        simple["http.request.method"] = "GET"
        simple["http.response.status_code"] = 200
        simple["int32"] = Int32(-7)
        simple["app.ratio"] = 0.25
        simple["app.cache.hit"] = true
        simple["empty"] = ""
        simple["exactly.16"] = String(repeating: "é", count: 8)
        var long = simple
        long["stack"] = String(repeating: "x", count: 40)
        var array = simple
        array["tags"] = ["a", "b"] as [String]
        var many = simple
        many["one.more"] = 1
        many["one.too.many"] = 2
        let limits = OTLPLimits(attributeCountLimit: 8, attributeValueLengthLimit: 16)
        let cases = [("simple", simple), ("long", long), ("array", array), ("many", many)]
        var expected: [String: OTLPSpan] = [:]
        do {
            let journal = OTLPSpanJournal(resource: Self.resource, durability: .flush, clock: clock)
            _ = try journal.open(directory: directory.path)
            for (index, (name, attributes)) in cases.enumerated() {
                let spanID = UInt64(index + 1)
                #expect(
                    journal.started(Self.pendingSpan(name, spanID: spanID, end: 0, attributes, limits: limits), interruptedAttribute: nil))
                var ended = Self.pendingSpan(name, spanID: spanID, end: 20, attributes, limits: limits)
                journal.ended(&ended, interruptedAttribute: nil)
                #expect(ended.hasPendingAttributes == (name == "simple"), "\(name): converted on the caller's thread only when needed")
                ended.prepareForExport()
                expected[name] = ended.span
            }
            #expect(journal.heldSpans == cases.count)
            // The process dies.
        }
        #expect(expected["long"]?.attributes.first { $0.key == "stack" }?.value == .string(String(repeating: "x", count: 16)))
        #expect(expected["many"]?.droppedAttributesCount == 1)
        let (recovery, spans, journal) = try Self.recover(directory.path, clock: clock)
        #expect(recovery.skippedRecords == 0)
        #expect(spans.map(\.span.name) == cases.map(\.0))
        for item in spans { #expect(item.span == expected[item.span.name], "\(item.span.name): as the pipeline exports it") }
        journal.exported(spans)
        journal.close()
    }

    @Test("a record that proves too large while written in place is refused, and leaves nothing behind: the journal reads clean")
    func tooLargeInPlace() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = OTLPManualClock()
        var settings = OTLPSpanJournal.Settings()
        settings.maxRecordBytes = 400
        var attributes = SpanAttributes()
        attributes["small"] = "value"
        var large = attributes
        large["body"] = String(repeating: "y", count: 1000)
        do {
            let journal = OTLPSpanJournal(resource: Self.resource, durability: .flush, clock: clock, settings: settings)
            _ = try journal.open(directory: directory.path)
            #expect(journal.started(Self.pendingSpan("kept", spanID: 1, end: 0, attributes, limits: .default), interruptedAttribute: nil))
            #expect(!journal.started(Self.pendingSpan("large", spanID: 2, end: 0, large, limits: .default), interruptedAttribute: nil))
            #expect(journal.refusedSpans == 1 && journal.heldSpans == 1)
            // The process dies.
        }
        let (recovery, spans, journal) = try Self.recover(directory.path, clock: clock, settings: settings)
        #expect(recovery.skippedRecords == 0 && recovery.skippedBytes == 0 && recovery.setAsidePath == nil)
        #expect(spans.map(\.span.name) == ["kept"])
        #expect(spans.first?.span.attributes == [OTLPAttribute("small", "value")])
        journal.exported(spans)
        journal.close()
    }

    @Test(
        "a journal on a full disk: the spans not journaled are said to be unwritten (not \"full\"), and spans that ended are not called open at shutdown"
    )
    func fullDisk() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let mountPoint = directory.appendingPathComponent("tiny").path
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        guard mount("tmpfs", mountPoint, "tmpfs", 0, "size=8k") == 0 else {
            Issue.record("cannot mount a tmpfs (needs root): \(String(cString: strerror(errno)))")
            return
        }
        defer { umount(mountPoint) }
        let clock = OTLPManualClock()
        let messages = Messages()
        let writer = try Writer(directory: mountPoint, clock: clock, exports: false, diagnostics: messages.add)
        var spans: [OTLPTracingSpan] = []
        for index in 0..<200 { spans.append(writer.start("span \(index) " + String(repeating: "x", count: 200), at: clock)) }
        for span in spans { writer.end(span, at: clock) }
        writer.journal.close()
        #expect(writer.journal.writeErrors > 0 && writer.journal.refusedSpans > 0)
        #expect(messages.all.contains { $0.contains("No space left on device") }, "\(messages.all)")
        #expect(messages.all.contains { $0.contains("writing the span journal") && $0.contains("failed") }, "\(messages.all)")
        #expect(!messages.all.contains { $0.contains("was full") || $0.contains("still open at shutdown") }, "\(messages.all)")
    }

    /// Writes `bytes` as the journal, recovers, and returns what was recovered and said.
    static func recoverFile(
        _ bytes: [UInt8], settings: OTLPSpanJournal.Settings = .default
    ) throws -> (
        OTLPSpanJournalRecovery, [String], setAside: [UInt8]?
    ) {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("open-spans.u32be.bin").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let messages = Messages()
        let clock = OTLPManualClock(1_700_000_000_000_000_000 + 10_000_000_000)
        let (recovery, _, journal) = try recover(directory.path, clock: clock, settings: settings, messages: messages)
        journal.close()
        let aside = FileManager.default.contents(atPath: path + ".unread").map { [UInt8]($0) }
        return (recovery, messages.all, aside)
    }

    static let time: UInt64 = 1_700_000_000_000_000_000
    static var good: [UInt8] { framed(startedRecord("AppStart", spanID: 1, at: time)) }
    static var otherGood: [UInt8] { framed(startedRecord("launch.phase", spanID: 2, at: time + 5)) }

    @Test("a damaged record between good ones is skipped and counted; the others are recovered; the file is set aside as it was")
    func damaged() throws {
        let garbage: [UInt8] = [0, 0, 0, 5, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        let file = Self.good + garbage + Self.otherGood
        let (recovery, messages, aside) = try Self.recoverFile(file)
        #expect(recovery.spans.map(\.name) == ["AppStart", "launch.phase"])
        #expect(recovery.skippedRecords == 1)
        #expect(aside == file)
        #expect(messages.contains { $0.contains("record 1 at byte \(Self.good.count)") }, "\(messages)")
    }

    @Test("a record cut short by the kill: what came before is recovered, the cut one counted")
    func truncated() throws {
        let file = Self.good + Self.otherGood.dropLast(7)
        let (recovery, messages, _) = try Self.recoverFile(file)
        #expect(recovery.spans.map(\.name) == ["AppStart"])
        #expect(recovery.skippedRecords == 1)
        #expect(messages.contains { $0.contains("the file ends") }, "\(messages)")
    }

    @Test(
        "regression: a record a kill left half written in place (its length prefix still zero, its body there) is the end of a killed run: nothing skipped or set aside; non-zero bytes far past it are counted as they are"
    )
    func halfWrittenInPlace() throws {
        // The body of the next record, written before its prefix, then the preallocated zeros.
        let half = Self.good + [0, 0, 0, 0] + Self.otherGood.dropFirst(4) + [UInt8](repeating: 0, count: 4096)
        let (recovery, messages, _) = try Self.recoverFile(half)
        #expect(recovery.spans.map(\.name) == ["AppStart"])
        #expect(recovery.skippedRecords == 0 && recovery.setAsidePath == nil, "\(messages)")
        // Bytes past any record's bound behind the zero prefix are damage: counted, and only the non-zero ones.
        let far = Self.good + [UInt8](repeating: 0, count: 300_000) + [1, 2, 3] + [UInt8](repeating: 0, count: 1000)
        let (damaged, notes, _) = try Self.recoverFile(far)
        #expect(damaged.spans.map(\.name) == ["AppStart"])
        #expect(damaged.skippedRecords == 1 && damaged.skippedBytes == 3, "\(notes)")
    }

    @Test("an oversized record prefix, and a file past its bound: skipped and counted, never read past the bound")
    func oversized() throws {
        let (recovery, _, _) = try Self.recoverFile(Self.good + [0xFF, 0xFF, 0xFF, 0xFF] + Self.otherGood)
        #expect(recovery.spans.map(\.name) == ["AppStart"])
        #expect(recovery.skippedRecords == 1)
        var settings = OTLPSpanJournal.Settings()
        settings.maxFileBytes = 1024
        var big: [UInt8] = []
        var id: UInt64 = 1
        while big.count < 8 * 1024 {
            big += Self.framed(Self.startedRecord("span", spanID: id, at: Self.time))
            id += 1
        }
        let (bounded, messages, _) = try Self.recoverFile(big, settings: settings)
        #expect(bounded.skippedRecords >= 1)
        #expect(bounded.spans.count < Int(id - 1))
        #expect(messages.contains { $0.contains("not read") }, "\(messages)")
    }

    @Test("a foreign file (an ordinary OTLP file, random bytes): nothing recovered, every record counted, the file kept aside")
    func foreign() throws {
        let data = OTLPTracesData(
            resource: OTLPResource(), scope: Self.scope,
            items: [
                OTLPSpan(traceID: OTLPTraceID(high: 1, low: 2), spanID: OTLPSpanID(3), name: "x", startTimeUnixNano: 1, endTimeUnixNano: 2)
            ])
        let encoded = OTLPEncoder().encode(data)
        var file: [UInt8] = []
        _ = OTLPLengthPrefix.encode(encoded.count, framing: .u32be, into: &file)
        file += encoded
        let (recovery, messages, aside) = try Self.recoverFile(file + file)
        #expect(recovery.spans.isEmpty && recovery.skippedRecords == 2)
        #expect(aside == file + file)
        #expect(messages.contains { $0.contains("not a journal record") })
        let random = (0..<300).map { _ in UInt8.random(in: 0...255) }
        let (fromRandom, _, _) = try Self.recoverFile(random)
        #expect(fromRandom.spans.isEmpty && fromRandom.skippedRecords >= 1)
    }

    @Test("a journal written by a newer format version: nothing of it is used, the file is kept aside for that version")
    func newerVersion() throws {
        var newer = Self.startedRecord("AppStart", spanID: 9, at: Self.time).request
        newer.resourceGroups[0].resource?.attributes.removeAll { $0.key == "otlpwire.journal.version" }
        let version = OTLPSpanJournalRecord.currentVersion + 1
        newer.resourceGroups[0].resource?.attributes.append(OTLPAttribute("otlpwire.journal.version", .int(version)))
        let encoded = OTLPEncoder().encode(newer)
        var record: [UInt8] = []
        _ = OTLPLengthPrefix.encode(encoded.count, framing: .u32be, into: &record)
        record += encoded
        let (recovery, messages, aside) = try Self.recoverFile(Self.good + record)
        #expect(recovery.spans.isEmpty)
        #expect(recovery.skippedRecords == 1)
        #expect(aside == Self.good + record)
        #expect(messages.contains { $0.contains("format version \(version)") }, "\(messages)")
    }

    /// A record of format version 1 (no checksum), as the library before version 2 wrote it.
    static func versionOne(_ record: OTLPSpanJournalRecord) -> [UInt8] {
        var request = record.request
        request.resourceGroups[0].resource?.attributes.removeAll { $0.key == "otlpwire.journal.version" }
        request.resourceGroups[0].resource?.attributes.insert(OTLPAttribute("otlpwire.journal.version", .int(1)), at: 0)
        let encoded = OTLPEncoder().encode(request)
        var bytes: [UInt8] = []
        _ = OTLPLengthPrefix.encode(encoded.count, framing: .u32be, into: &bytes)
        return bytes + encoded
    }

    @Test("a journal of format version 1 (no checksums, no preallocation), left by an older library: recovered in full")
    func versionOneFile() throws {
        let file =
            Self.versionOne(Self.startedRecord("AppStart", spanID: 1, at: Self.time))
            + Self.versionOne(Self.startedRecord("launch.phase", spanID: 2, at: Self.time + 5))
        let (recovery, messages, aside) = try Self.recoverFile(file)
        #expect(recovery.spans.map(\.name) == ["AppStart", "launch.phase"])
        #expect(recovery.skippedRecords == 0 && aside == nil, "\(messages)")
    }

    @Test(
        "a flipped byte in a record the journal wrote: its checksum fails, it is skipped and counted (never recovered altered); the records around it are recovered"
    )
    func flippedByte() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = OTLPManualClock(Self.time)
        do {
            let writer = try Writer(directory: directory.path, clock: clock, exports: false)
            for name in ["first", "second", "third"] { _ = writer.start(name, at: clock) }
            // Killed: the file stays as written, preallocated (zeros after the last record).
        }
        let path = directory.appendingPathComponent("open-spans.u32be.bin").path
        var bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
        #expect(bytes.count % 4096 == 0 && bytes.last == 0, "preallocated: zeros after the records")
        // The second span's name, in each of its records (as it started, and checkpointed): a flip the protobuf
        // decoder would not notice.
        let name = Array("second".utf8)
        let places = (0...(bytes.count - name.count)).filter { Array(bytes[$0..<$0 + name.count]) == name }
        #expect(places.count == 2)
        for at in places { bytes[at] ^= 0x20 }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let messages = Messages()
        let (recovery, spans, journal) = try Self.recover(directory.path, clock: clock, messages: messages)
        journal.close()
        #expect(spans.map(\.span.name).sorted() == ["first", "third"])
        #expect(recovery.skippedRecords == 2 && recovery.skippedBytes > 0)
        #expect(messages.all.contains { $0.contains("checksum") }, "\(messages.all)")
    }

    @Test("fsync durability: each record made durable (msync of the mapping) as it is written; recovered as under flush")
    func fsyncDurability() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = OTLPManualClock(Self.time)
        let messages = Messages()
        do {
            let writer = try Writer(directory: directory.path, clock: clock, exports: false, durability: .fsync, diagnostics: messages.add)
            let root = writer.start("AppStart", at: clock)
            writer.end(writer.start("launch.phase", at: clock, parent: root), at: clock)
            #expect(writer.journal.writeErrors == 0 && writer.journal.heldSpans == 2)
        }
        #expect(messages.all.isEmpty, "\(messages.all)")
        let (recovery, spans, journal) = try Self.recover(directory.path, clock: clock)
        journal.close()
        #expect(spans.map(\.span.name) == ["AppStart", "launch.phase"])
        #expect(recovery.skippedRecords == 0)
    }

    @Test("a length that cannot be believed: the bytes from there on are reported as not read (not as one record's)")
    func unbelievableLengthReportsBytes() throws {
        let file = Self.good + [0xFF, 0xFF, 0xFF, 0xFF] + Self.otherGood
        let (recovery, messages, _) = try Self.recoverFile(file)
        #expect(recovery.skippedBytes == 4 + Self.otherGood.count)
        #expect(messages.contains { $0.contains("the \(4 + Self.otherGood.count) bytes from here on are not read") }, "\(messages)")
    }

    @Test("a journal record is an ordinary OTLP traces request: read back by the record reader")
    func readable() throws {
        let reader = try OTLPRecordReader(source: OTLPMemorySource(Self.good + Self.otherGood), options: OTLPReaderOptions(framing: .u32be))
        var names: [String] = []
        while let record = try reader.next() {
            guard case .traces(let data) = record.payload else { continue }
            names += data.resourceGroups.flatMap { $0.scopeGroups.flatMap(\.items) }.map(\.name)
        }
        #expect(names == ["AppStart", "launch.phase"])
    }
}
