import Foundation
import OTLPTesting
import OTLPWire
import Testing
import Tracing

@testable import OTLPTelemetry

@Suite("OTLPDeferredReleases")
struct OTLPDeferredReleasesTests {
    /// An attribute value that records the thread its last reference went away on.
    final class Tracked: CustomStringConvertible, Sendable {
        let id: Int
        let freed: Freed
        init(_ id: Int, _ freed: Freed) {
            self.id = id
            self.freed = freed
        }
        var description: String { "tracked \(id)" }
        deinit { freed.record(id) }
    }

    /// Which tracked values went away, on which thread; signals each one.
    final class Freed: @unchecked Sendable {
        private let lock = NSLock()
        private var threads: [Int: pthread_t] = [:]
        let signal = DispatchSemaphore(value: 0)
        func record(_ id: Int) {
            lock.withLock { threads[id] = pthread_self() }
            signal.signal()
        }
        var byID: [Int: pthread_t] { lock.withLock { threads } }
    }

    static func attributes(_ ids: ClosedRange<Int>, _ freed: Freed) -> OTLPDeferredReleases {
        var releases = OTLPDeferredReleases()
        for id in ids {
            var attributes = SpanAttributes()
            attributes.set("tracked", value: .stringConvertible(Tracked(id, freed)))
            releases.append(attributes)
        }
        return releases
    }

    @Test("moving into a bin stops at its limit and leaves the rest; a caller takes at most two")
    func limits() {
        let freed = Freed()
        var bin = Self.attributes(1...3, freed)
        var worker = Self.attributes(4...8, freed)
        bin.take(from: &worker, upTo: 6)
        #expect(bin.count == 6 && worker.count == 2)
        worker.releaseAll()
        #expect(Set(freed.byID.keys) == [4, 5])  // the worker keeps what did not fit: the first it prepared
        var empty = OTLPDeferredReleases()
        empty.take(from: &bin, upTo: .max)
        #expect(empty.count == 6 && bin.isEmpty)
        var taken = Optional(empty.takeForCaller())
        #expect(empty.count == 4)
        taken = nil
        #expect(freed.byID.count == 4 && taken == nil)
        for _ in 0..<3 { _ = empty.takeForCaller() }
        #expect(empty.isEmpty && freed.byID.count == 8)
    }

    static func stage(
        batchSize: Int, clock: OTLPManualClock
    ) -> (
        OTLPBatchStage<OTLPStreamExporter<OTLPScopedSpan>>, OTLPTracer, OTLPMemorySink, OTLPTelemetryCounters
    ) {
        let counters = OTLPTelemetryCounters()
        let sink = OTLPMemorySink()
        let stage = OTLPBatchStage(
            exporter: OTLPStreamExporter<OTLPScopedSpan>(sink: sink, resource: OTLPResource(), counters: counters),
            counters: counters, configuration: .init(maxQueueSize: 8, maxExportBatchSize: batchSize, scheduleDelaySeconds: 60),
            clock: clock)
        return (stage, OTLPTracer(stage: stage, scope: OTLPInstrumentationScope(name: "tests")), sink, counters)
    }

    @Test(
        "converted on the worker, a span's attributes are kept for callers: each span handed on frees two; the worker frees what is left after the schedule delay"
    )
    func keptForCallers() throws {
        let clock = OTLPManualClock()
        let (stage, tracer, sink, counters) = Self.stage(batchSize: 2, clock: clock)
        for name in ["a", "b", "c"] {
            let span = tracer.startSpan(name)
            span.attributes["key"] = "value of \(name), longer than a small string"
            span.attributes["count"] = 3
            span.end()
        }
        stage.forceFlush()
        try #require(stage.deferredReleaseCount == 3)
        tracer.startSpan("d").end()  // takes two
        #expect(stage.deferredReleaseCount == 1)
        stage.forceFlush()
        #expect(stage.deferredReleaseCount == 2)  // d's attributes (none: the shared empty storage) too
        clock.waitUntilWaiting(atLeast: 1)
        clock.advance(seconds: 60)
        // The clock is past the worker's deadline now: it frees them as soon as it runs (no clock wait is left to
        // watch for, hence the yield).
        while stage.deferredReleaseCount > 0 { sched_yield() }
        stage.shutdown()
        let exported = spans(try readAll(sink.bytes))
        #expect(exported.map(\.name) == ["a", "b", "c", "d"])
        #expect(
            exported[0].attributes == [OTLPAttribute("count", .int(3)), OTLPAttribute("key", "value of a, longer than a small string")])
        #expect(counters.snapshot.spansExported == 4)
    }

    @Test("attributes holding the application's own values (stringConvertible) are freed on the worker, never inside another span's end")
    func applicationValuesFreedOnTheWorker() throws {
        let freed = Freed()
        let (stage, tracer, sink, _) = Self.stage(batchSize: 8, clock: OTLPManualClock())
        do {
            let span = tracer.startSpan("a")
            span.attributes.set("tracked", value: .stringConvertible(Tracked(0, freed)))
            span.end()
        }
        stage.forceFlush()
        #expect(stage.deferredReleaseCount == 0)
        let worker = try #require(freed.byID[0])
        #expect(pthread_equal(worker, pthread_self()) == 0)
        stage.shutdown()
        #expect(spans(try readAll(sink.bytes)).first?.attributes == [OTLPAttribute("tracked", "tracked 0")])
    }

    @Test("shutdown frees what callers had still to free, while the stage lives on")
    func freedAtShutdown() {
        let (stage, tracer, _, _) = Self.stage(batchSize: 1, clock: OTLPManualClock())
        let span = tracer.startSpan("a")
        span.attributes["key"] = "value"
        span.end()
        stage.forceFlush()
        #expect(stage.deferredReleaseCount == 1)
        stage.shutdown()
        #expect(stage.deferredReleaseCount == 0)
    }
}
