import Foundation
import OTLPTesting
import OTLPWire
import Testing
import Tracing

@testable import OTLPTelemetry

/// Shutdown by a deadline with a sink stuck in a write: it returns at the deadline, counts what the exporter
/// was never handed and the batch stuck in its write (`shutdown_timeout`), taking back the batch's count if its write ends.
@Suite("Batch stage shutdown by a deadline")
struct OTLPBatchStageDeadlineTests {
    @Test("a stuck write: shutdown(before:) returns at the deadline; what was not handed to the exporter is counted shutdown_timeout")
    func stuckSinkDeadline() throws {
        let sink = ControllableSink()
        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let clock = OTLPManualClock()
        let stage = OTLPBatchStage(
            exporter: OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, resource: OTLPResource(), counters: counters),
            counters: counters, configuration: .init(maxExportBatchSize: 10, scheduleDelaySeconds: 3600, exportTimeoutSeconds: 3600),
            diagnostics: { messages.add($0) }, clock: clock)
        sink.hold()
        for index in 0..<25 { stage.onEnd(OTLPConfigurationRangeTests.record(index)) }
        sink.waitUntilAWriteIsHeld()  // the worker holds the first batch, stuck in its write
        // The export timeout (an hour) would hold a shutdown without a deadline; this one ends at its deadline,
        // once the clock passes it (and not before: the shutdown is waiting on it then).
        let deadline = clock.nowMonotonicNano() + 200_000_000
        let results = OTLPLockedArray<Bool>()
        let shutdown = DispatchGroup()
        DispatchQueue.global().async(group: shutdown) { results.append(stage.shutdown(beforeMonotonicNano: deadline)) }
        clock.waitUntilWaiting(untilAtMost: deadline)
        #expect(results.values.isEmpty)
        clock.advance(200_000_000)
        shutdown.wait()
        let finished = try #require(results.values.first)
        #expect(!finished)
        // Every item is counted when shutdown returns (the process may end now): the ones never handed to the
        // exporter and the batch stuck in its write alike.
        let dropped = counters.snapshot.logRecordsDropped[.shutdownTimeout, default: 0]
        #expect(dropped == 25, "\(counters.snapshot)")
        #expect(messages.all.count == 1)
        let message = messages.all.first ?? ""
        #expect(message.contains("shutdown's deadline passed: 25 log records not exported dropped (shutdown_timeout), "), "\(message)")
        let stuck = message.firstMatch(of: /, (\d+) of them in a write to the exporter that had not ended/).flatMap { Int($0.1) } ?? -1
        #expect((1..<25).contains(stuck), "\(message)")
        // The write ends after all: the exporter counts that batch exported, and the stage takes back its drop.
        sink.release()
        #expect(stage.forceFlush())
        let snapshot = counters.snapshot
        #expect(snapshot.logRecordsExported == stuck && snapshot.totalLogRecordsDropped == 25 - stuck, "\(snapshot)")
        #expect(logRecords(try readAll(sink.collected)).count == stuck)
    }

    @Test(
        "regression: an exporter that counted its batch just before the deadline, its write not yet ended: once it ends, each item is counted once (was exported and shutdown_timeout both)"
    )
    func countedJustBeforeTheDeadline() throws {
        let counters = OTLPTelemetryCounters()
        let exporter = CountingThenHeldExporter(counters: counters)
        let clock = OTLPManualClock()
        let stage = OTLPBatchStage(
            exporter: exporter, counters: counters,
            configuration: .init(maxExportBatchSize: 10, scheduleDelaySeconds: 3600, exportTimeoutSeconds: 3600),
            diagnostics: { _ in }, clock: clock)
        for index in 0..<10 { stage.onEnd(OTLPConfigurationRangeTests.record(index)) }
        exporter.waitUntilHeld()  // the exporter has counted the batch exported; its write has not returned
        let deadline = clock.nowMonotonicNano() + 200_000_000
        let shutdown = DispatchGroup()
        let results = OTLPLockedArray<Bool>()
        DispatchQueue.global().async(group: shutdown) { results.append(stage.shutdown(beforeMonotonicNano: deadline)) }
        clock.waitUntilWaiting(untilAtMost: deadline)
        clock.advance(200_000_000)
        shutdown.wait()
        #expect(results.values == [false])
        exporter.release()
        #expect(stage.forceFlush())  // returns once the worker has seen the write end
        let snapshot = counters.snapshot
        #expect(snapshot.logRecordsReceived == 10 && snapshot.logRecordsExported == 10, "\(snapshot)")
        #expect(snapshot.totalLogRecordsDropped == 0, "\(snapshot)")
    }

    @Test("a deadline that is not reached changes nothing: everything exported, true returned")
    func deadlineNotReached() throws {
        let sink = ControllableSink()
        let counters = OTLPTelemetryCounters()
        let stage = OTLPBatchStage(
            exporter: OTLPStreamExporter<OTLPScopedLogRecord>(sink: sink, resource: OTLPResource(), counters: counters),
            counters: counters, configuration: .init(maxExportBatchSize: 10, scheduleDelaySeconds: 3600))
        for index in 0..<25 { stage.onEnd(OTLPConfigurationRangeTests.record(index)) }
        #expect(stage.shutdown(before: .now + .seconds(3600)))
        #expect(counters.snapshot.logRecordsExported == 25 && counters.snapshot.totalLogRecordsDropped == 0)
    }

    @Test("the exporter is told to stop a tenth of the time left before the deadline, at most half a second")
    func exporterDeadline() {
        let now: UInt64 = 1_000_000_000_000
        let second: UInt64 = 1_000_000_000
        typealias Stage = OTLPBatchStage<OTLPStreamExporter<OTLPScopedSpan>>
        #expect(Stage.exporterDeadlineNano(before: now + second, now: now) == now + 900_000_000)
        #expect(Stage.exporterDeadlineNano(before: now + 30 * second, now: now) == now + 29_500_000_000)
        #expect(Stage.exporterDeadlineNano(before: now - second, now: now) == now - second)
    }
}

/// An exporter that counts each batch exported as soon as it gets it, then holds the write until released: the
/// moment between an exporter's count and the end of its write.
private final class CountingThenHeldExporter: OTLPExporter, @unchecked Sendable {
    private let counters: OTLPTelemetryCounters
    private let condition = NSCondition()
    private var released = false
    private var held = false

    init(counters: OTLPTelemetryCounters) { self.counters = counters }

    func export(_ items: [OTLPScopedLogRecord]) -> Bool {
        counters.exported(items.count, .logs, bytes: 0)
        condition.lock()
        defer { condition.unlock() }
        held = true
        condition.broadcast()
        while !released { condition.wait() }
        return true
    }

    func waitUntilHeld() {
        condition.lock()
        defer { condition.unlock() }
        while !held { condition.wait() }
    }

    func release() {
        condition.lock()
        released = true
        condition.broadcast()
        condition.unlock()
    }

    func forceFlush() {}
    func shutdown() {}
}

extension OTLPBatchStageDeadlineTests {
    /// An attribute value whose deinit ends a span of the same tracer.
    final class SpanEndingValue: CustomStringConvertible, @unchecked Sendable {
        let tracer: OTLPTracer
        init(_ tracer: OTLPTracer) { self.tracer = tracer }
        var description: String { "ends a span when freed" }
        deinit { tracer.startSpan("from a deinit").end() }
    }

    @Test(
        "regression: the items dropped at shutdown's deadline are freed outside the stage's lock (a value's deinit that ended a span deadlocked shutdown(before:))"
    )
    func deinitAtTheDeadlineEndsASpan() throws {
        let sink = ControllableSink()
        let counters = OTLPTelemetryCounters()
        let clock = OTLPManualClock()
        let stage = OTLPBatchStage(
            exporter: OTLPStreamExporter<OTLPScopedSpan>(sink: sink, resource: OTLPResource(), counters: counters),
            counters: counters,
            configuration: .init(maxQueueSize: 1024, maxExportBatchSize: 4, scheduleDelaySeconds: 3600, exportTimeoutSeconds: 3600),
            diagnostics: { _ in }, clock: clock)
        let tracer = OTLPTracer(stage: stage, scope: OTLPInstrumentationScope(name: "tests"))
        sink.hold()
        for index in 0..<4 { tracer.startSpan("first \(index)").end() }
        sink.waitUntilAWriteIsHeld()  // the worker is stuck in its first write; the next spans stay queued
        for index in 0..<8 {
            let span = tracer.startSpan("ending \(index)")
            span.attributes.set("value", value: .stringConvertible(SpanEndingValue(tracer)))
            span.end()
        }
        let deadline = clock.nowMonotonicNano() + 200_000_000
        let shutdown = DispatchGroup()
        DispatchQueue.global().async(group: shutdown) { _ = stage.shutdown(beforeMonotonicNano: deadline) }
        clock.waitUntilWaiting(untilAtMost: deadline)
        clock.advance(200_000_000)
        // A bound on a deadlock, not a timing: shutdown returns at once once the clock has passed its deadline.
        let returned = shutdown.wait(timeout: .now() + 30) == .success
        #expect(returned, "shutdown(before:) did not return")
        guard returned else { return }
        // The 8 spans freed at the deadline each ended one more, after shutdown: counted shut_down.
        #expect(counters.snapshot.spansDropped[.shutDown, default: 0] == 8, "\(counters.snapshot)")
        sink.release()
    }
}
