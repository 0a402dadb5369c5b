import Foundation
import OTLPTesting
import Testing
import OTLPWire
@testable import OTLPTelemetry

/// `batch.whenFull` `wait`: callers wait for room instead of dropping, bounded by `whenFullTimeoutSeconds`,
/// and a shutdown releases them. The exporter is made slow by holding its sink, never by sleeping.
@Suite("OTLPBatchStage whenFull")
struct OTLPBatchStageWhenFullTests {
    static let resource = OTLPResource(attributes: [OTLPAttribute("service.name", "tests")])

    static func record(_ index: Int) -> OTLPScopedLogRecord {
        OTLPScopedLogRecord(
            scope: OTLPInstrumentationScope(name: "tests"), record: OTLPLogRecord(timeUnixNano: UInt64(index + 1), body: .int(Int64(index)))
        )
    }

    static func stage(
        _ sink: ControllableSink, _ counters: OTLPTelemetryCounters, _ configuration: OTLPBatchConfiguration,
        clock: any OTLPWaitableClock = OTLPSystemMonotonicClock()
    )
        -> OTLPBatchStage<OTLPStreamExporter<OTLPScopedLogRecord>>
    {
        OTLPBatchStage(
            exporter: OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, resource: resource, counters: counters), counters: counters,
            configuration: configuration, diagnostics: { _ in }, clock: clock)
    }

    @Test("wait: many producers and a slow exporter lose nothing; every record is written once")
    func waitLosesNothing() throws {
        let sink = ControllableSink()
        let counters = OTLPTelemetryCounters()
        let stage = Self.stage(
            sink, counters,
            .init(maxQueueSize: 16, maxExportBatchSize: 8, scheduleDelaySeconds: 3600, whenFull: .wait, whenFullTimeoutSeconds: 86_400))
        sink.hold()  // the exporter cannot write: the queue fills up and the producers must wait
        let producers = 8
        let perProducer = 200
        let done = DispatchGroup()
        DispatchQueue.global().async(group: done) {
            DispatchQueue.concurrentPerform(iterations: producers) { producer in
                for index in 0..<perProducer { stage.onEnd(Self.record(producer * perProducer + index)) }
            }
        }
        stage.waitUntilCallersWait(atLeast: 1)  // with `drop` these items would be lost
        #expect(counters.snapshot.totalLogRecordsDropped == 0)
        sink.release()
        done.wait()
        stage.shutdown()
        let snapshot = counters.snapshot
        let total = producers * perProducer
        #expect(snapshot.logRecordsReceived == total)
        #expect(snapshot.logRecordsDropped.isEmpty, "\(snapshot)")
        #expect(snapshot.logRecordsExported == total)
        let written = logRecords(try readAll(sink.collected)).map(\.timeUnixNano)
        #expect(written.sorted() == (1...total).map(UInt64.init))
    }

    @Test("wait: an item still without room when the wait expires is dropped and counted (queue_full_after_wait)")
    func waitExpires() throws {
        let sink = ControllableSink()
        let counters = OTLPTelemetryCounters()
        let clock = OTLPManualClock()
        let stage = Self.stage(
            sink, counters,
            .init(maxQueueSize: 1, maxExportBatchSize: 1, scheduleDelaySeconds: 3600, whenFull: .wait, whenFullTimeoutSeconds: 1),
            clock: clock)
        sink.hold()
        // One record in the worker's stuck write and one in the queue: the third cannot get in.
        stage.onEnd(Self.record(0))
        sink.waitUntilAWriteIsHeld()
        stage.onEnd(Self.record(1))
        let producer = DispatchGroup()
        DispatchQueue.global().async(group: producer) { stage.onEnd(Self.record(2)) }
        // Its caller waits for room until the clock has moved by the wait's second.
        let waitEnd = clock.nowMonotonicNano() + 1_000_000_000
        clock.waitUntilWaiting(untilAtMost: waitEnd)
        #expect(stage.waitingCallerCount == 1)
        clock.advance(seconds: 1)
        producer.wait()
        let whileHeld = counters.snapshot
        #expect(whileHeld.logRecordsDropped[.queueFullAfterWait, default: 0] >= 1, "\(whileHeld)")
        #expect(whileHeld.logRecordsDropped[.queueFull] == nil)
        sink.release()
        stage.shutdown()
        let snapshot = counters.snapshot
        #expect(snapshot.logRecordsExported + snapshot.totalLogRecordsDropped == 3)
        #expect(snapshot.logRecordsDropped.keys.allSatisfy { $0 == .queueFullAfterWait })
        #expect(logRecords(try readAll(sink.collected)).count == snapshot.logRecordsExported)
    }

    @Test("wait: a shutdown releases the callers waiting for room; their records count as shut_down")
    func shutdownReleasesWaiters() throws {
        let sink = ControllableSink()
        let counters = OTLPTelemetryCounters()
        let stage = Self.stage(
            sink, counters,
            .init(maxQueueSize: 1, maxExportBatchSize: 1, scheduleDelaySeconds: 3600, whenFull: .wait, whenFullTimeoutSeconds: 86_400))
        sink.hold()
        let producer = DispatchGroup()
        DispatchQueue.global().async(group: producer) {
            for index in 0..<3 { stage.onEnd(Self.record(index)) }
        }
        stage.waitUntilCallersWait(atLeast: 1)
        let shutdown = DispatchGroup()
        DispatchQueue.global().async(group: shutdown) { stage.shutdown() }
        // The producer returns although the exporter is still stuck (the wait alone would last a day).
        #expect(producer.wait(timeout: .now() + 600) == .success)
        #expect(stage.waitingCallerCount == 0)
        sink.release()
        shutdown.wait()
        let snapshot = counters.snapshot
        #expect(snapshot.logRecordsDropped[.shutDown, default: 0] >= 1, "\(snapshot)")
        #expect(snapshot.logRecordsDropped[.queueFullAfterWait] == nil)
        #expect(snapshot.logRecordsExported + snapshot.totalLogRecordsDropped == 3)
    }

    @Test("drop (the default): a full queue drops at once and no caller waits")
    func dropIsTheDefault() {
        #expect(OTLPBatchConfiguration.default.whenFull == .drop)
        let sink = ControllableSink()
        let counters = OTLPTelemetryCounters()
        let stage = Self.stage(sink, counters, .init(maxQueueSize: 1, maxExportBatchSize: 1, scheduleDelaySeconds: 3600))
        sink.hold()
        for index in 0..<3 { stage.onEnd(Self.record(index)) }
        #expect(counters.snapshot.logRecordsDropped[.queueFull, default: 0] >= 1)
        #expect(stage.waitingCallerCount == 0)
        sink.release()
        stage.shutdown()
    }
}
