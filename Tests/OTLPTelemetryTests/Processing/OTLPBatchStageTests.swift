import Foundation
import Testing
import Tracing
import OTLPWire
@testable import OTLPTelemetry
import OTLPTestSupport

@Suite("OTLPBatchStage")
struct OTLPBatchStageTests {
    static let resource = OTLPResource(attributes: [OTLPAttribute("service.name", "tests")])
    static let scope = OTLPInstrumentationScope(name: "tests")

    static func record(_ index: Int) -> OTLPScopedLogRecord {
        OTLPScopedLogRecord(scope: scope, record: OTLPLogRecord(timeUnixNano: UInt64(index + 1), body: .int(Int64(index))))
    }

    @Test("a full queue drops and counts instead of blocking; everything is accounted for")
    func queueFull() throws {
        let sink = ControllableSink()
        let counters = OTLPTelemetryCounters()
        let stage = OTLPBatchStage(
            exporter: OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, resource: Self.resource, counters: counters),
            counters: counters, configuration: .init(maxQueueSize: 10, maxExportBatchSize: 5, scheduleDelaySeconds: 3600))
        sink.hold()  // the exporter's writes wait: the queue can only fill up
        for index in 0..<100 { stage.onEnd(Self.record(index)) }  // returns although nothing can be written
        let whileHeld = counters.snapshot
        #expect(whileHeld.logRecordsDropped[.queueFull, default: 0] >= 100 - 10 - 100 / 2)
        sink.release()
        stage.shutdown()
        let final = counters.snapshot
        #expect(final.logRecordsReceived == 100)
        #expect(final.logRecordsExported + final.totalLogRecordsDropped == 100)
        #expect(final.logRecordsDropped[.queueFull, default: 0] > 0)
        #expect(logRecords(try readAll(sink.collected)).count == final.logRecordsExported)
        // The queue would have had to hold what waited plus what was dropped while the worker was stuck: at
        // least the drops, at most every item (how many the worker took before the hold depends on timing).
        #expect(stage.peakQueueDemand <= 100, "\(stage.peakQueueDemand)")
        #expect(stage.peakQueueDemand >= final.logRecordsDropped[.queueFull, default: 0])
    }

    /// An item that records which thread did its deferred work.
    struct ThreadProbe: OTLPExportable {
        var index: Int
        var preparedBy: pthread_t?
        static var signal: OTLPSignal { .traces }
        static func request(_ items: [ThreadProbe], resource: OTLPResource) -> OTLPTracesData { OTLPTracesData() }
        func nestsValues(deeperThan levels: Int) -> Bool { false }
        mutating func prepareForExport() {
            if preparedBy == nil { preparedBy = pthread_self() }
        }
    }

    /// Keeps what it is given.
    final class ProbeExporter: OTLPExporter, @unchecked Sendable {
        private let lock = NSLock()
        private var exported: [ThreadProbe] = []
        var items: [ThreadProbe] { lock.withLock { exported } }
        func export(_ items: [ThreadProbe]) -> Bool {
            lock.withLock { exported += items }
            return true
        }
        func forceFlush() {}
        func shutdown() {}
    }

    @Test("callers do their item's deferred work themselves once the queue is half full; the worker does the rest")
    func callersHelpWhenBehind() {
        let counters = OTLPTelemetryCounters()
        let exporter = ProbeExporter()
        // The worker takes nothing before a full batch (8): the first 4 items wait unprepared, the next 4 find
        // the queue half full.
        let stage = OTLPBatchStage(
            exporter: exporter, counters: counters, configuration: .init(maxQueueSize: 8, maxExportBatchSize: 8, scheduleDelaySeconds: 3600)
        )
        let caller = pthread_self()
        for index in 0..<8 { stage.onEnd(ThreadProbe(index: index)) }
        stage.shutdown()
        let items = exporter.items
        #expect(items.map(\.index) == Array(0..<8))
        #expect(items.allSatisfy { $0.preparedBy != nil })
        #expect(items[..<4].allSatisfy { $0.preparedBy.map { pthread_equal($0, caller) } == 0 }, "prepared by the worker")
        #expect(items[4...].allSatisfy { $0.preparedBy.map { pthread_equal($0, caller) } != 0 }, "prepared by the caller")
        #expect(counters.snapshot.spansReceived == 8 && counters.snapshot.totalSpansDropped == 0)
    }

    @Test("once the queue is half full, callers render a batch themselves for the worker to write; all accounted for")
    func callersRenderWhenFarBehind() throws {
        let sink = ControllableSink()
        let counters = OTLPTelemetryCounters()
        let stage = OTLPBatchStage(
            exporter: OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, resource: Self.resource, counters: counters),
            counters: counters, configuration: .init(maxQueueSize: 16, maxExportBatchSize: 4, scheduleDelaySeconds: 3600))
        sink.hold()  // the worker's first write waits: the queue fills up behind it
        for index in 0..<40 { stage.onEnd(Self.record(index)) }
        #expect(stage.callerRenderedBatchCount >= 1)
        sink.release()
        #expect(stage.forceFlush())
        let snapshot = counters.snapshot
        #expect(snapshot.logRecordsReceived == 40)
        #expect(snapshot.logRecordsExported + snapshot.totalLogRecordsDropped == 40)
        #expect(snapshot.logRecordsDropped.keys.allSatisfy { $0 == .queueFull }, "\(snapshot)")
        let written = logRecords(try readAll(sink.collected)).map(\.timeUnixNano)
        #expect(written.count == snapshot.logRecordsExported)
        #expect(Set(written).count == written.count, "each record written once")
        stage.shutdown()
    }

    @Test("many producers on a small queue (callers rendering, whenFull wait): nothing lost, every record once, shutdown writes all")
    func manyProducersSmallQueue() throws {
        let sink = OTLPMemorySink()
        let counters = OTLPTelemetryCounters()
        let stage = OTLPBatchStage(
            exporter: OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, gzip: true, resource: Self.resource, counters: counters),
            counters: counters,
            configuration: .init(
                maxQueueSize: 64, maxExportBatchSize: 16, scheduleDelaySeconds: 3600, whenFull: .wait, whenFullTimeoutSeconds: 86_400))
        let producers = 8
        let perProducer = 2_000
        DispatchQueue.concurrentPerform(iterations: producers) { producer in
            for index in 0..<perProducer { stage.onEnd(Self.record(producer * perProducer + index)) }
        }
        stage.shutdown()
        let total = producers * perProducer
        let snapshot = counters.snapshot
        #expect(snapshot.logRecordsDropped.isEmpty, "\(snapshot)")
        #expect(snapshot.logRecordsExported == total)
        let written = logRecords(try readAll(sink.bytes)).map(\.timeUnixNano)
        #expect(written.sorted() == (1...total).map(UInt64.init))
    }

    @Test("forceFlush exports everything queued, in batches of at most maxExportBatchSize")
    func forceFlush() throws {
        let sink = ControllableSink()
        let counters = OTLPTelemetryCounters()
        let stage = OTLPBatchStage(
            exporter: OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, resource: Self.resource, counters: counters),
            counters: counters, configuration: .init(maxQueueSize: 10_000, maxExportBatchSize: 64, scheduleDelaySeconds: 3600))
        for index in 0..<1000 { stage.onEnd(Self.record(index)) }
        #expect(stage.forceFlush())
        let payloads = try readAll(sink.collected)
        #expect(logRecords(payloads).map(\.timeUnixNano) == (1...1000).map(UInt64.init))
        #expect(payloads.allSatisfy { $0.itemCount <= 64 })
        #expect(counters.snapshot.logRecordsExported == 1000)
        stage.shutdown()
    }

    @Test("after shutdown, items are refused and counted as shut_down")
    func afterShutdown() {
        let counters = OTLPTelemetryCounters()
        let stage = OTLPBatchStage(
            exporter: OTLPStreamExporter<OTLPScopedLogRecord>(sink: OTLPMemorySink(), resource: Self.resource, counters: counters),
            counters: counters)
        stage.onEnd(Self.record(0))
        stage.shutdown()
        stage.onEnd(Self.record(1))
        #expect(counters.snapshot.logRecordsExported == 1)
        #expect(counters.snapshot.logRecordsDropped == [.shutDown: 1])
    }

    @Test("load: 8 threads x 100,000 spans and 8 x 100,000 log records into files, none lost, parents consistent")
    func load() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let counters = OTLPTelemetryCounters()
        let config = OTLPBatchConfiguration(maxQueueSize: 1_000_000, scheduleDelaySeconds: 0.2)
        let spanStage = OTLPBatchStage(
            exporter: OTLPStreamExporter<OTLPScopedSpan>(
                path: directory.appendingPathComponent("traces.u32be.bin").path, durability: .none, resource: Self.resource,
                counters: counters),
            counters: counters, configuration: config)
        let logStage = OTLPBatchStage(
            exporter: OTLPStreamExporter<OTLPScopedLogRecord>(
                path: directory.appendingPathComponent("logs.u32be.bin.gz").path, gzip: true, durability: .none, resource: Self.resource,
                counters: counters),
            counters: counters, configuration: .init(maxQueueSize: 1_000_000, scheduleDelaySeconds: 0.2))
        let tracer = OTLPTracer(stage: spanStage, scope: Self.scope)
        let emitter = OTLPLogEmitter(stage: logStage, scope: Self.scope)
        let perThread = 100_000
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            var root = tracer.startSpan("root-\(thread)")
            for index in 0..<perThread {
                if index % 1000 == 999 {  // every 1000th span is a new root; the others are its children
                    root.end()
                    root = tracer.startSpan("root-\(thread)")
                    continue
                }
                let span = tracer.startSpan("work", context: root.context)
                span.attributes["index"] = index
                span.end()
                emitter.emit(OTLPLogRecord(timeUnixNano: UInt64(index + 1), body: .string("log \(thread)")))
            }
            root.end()
            for index in 0..<(perThread / 1000) {  // top up the log records to exactly perThread
                emitter.emit(OTLPLogRecord(timeUnixNano: UInt64(index + 1), body: .string("extra \(thread)")))
            }
        }
        spanStage.shutdown()
        logStage.shutdown()

        let snapshot = counters.snapshot
        let spansEnded = 8 * perThread + 8  // each thread ends one more root than it replaced
        #expect(snapshot.spansReceived == spansEnded)
        #expect(snapshot.totalSpansDropped == 0)
        #expect(snapshot.spansExported == spansEnded)
        #expect(snapshot.logRecordsReceived == 8 * (perThread - perThread / 1000 + perThread / 1000))
        #expect(snapshot.totalLogRecordsDropped == 0)

        var spanCount = 0
        var spanIDs = Set<OTLPSpanID>()
        var parents: [(OTLPSpanID, OTLPTraceID)] = []
        var traceOf: [OTLPSpanID: OTLPTraceID] = [:]
        let reader = try OTLPRecordReader(path: directory.appendingPathComponent("traces.u32be.bin").path)
        while let record = try reader.next() {
            for span in spans([record.payload]) {
                spanCount += 1
                spanIDs.insert(span.spanID!)
                traceOf[span.spanID!] = span.traceID!
                if let parent = span.parentSpanID { parents.append((parent, span.traceID!)) }
            }
        }
        #expect(spanCount == spansEnded)
        #expect(spanIDs.count == spansEnded)
        #expect(parents.allSatisfy { traceOf[$0.0] == $0.1 }, "every parent is in the file, in the same trace")

        var logCount = 0
        let logReader = try OTLPRecordReader(path: directory.appendingPathComponent("logs.u32be.bin.gz").path)
        while let record = try logReader.next() { logCount += record.payload.itemCount }
        #expect(logCount == snapshot.logRecordsExported)
        #expect(logCount == 8 * perThread)
    }
}
