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

    @Test(
        "a span's attributes, converted on the worker, are freed on the thread of a later span's end; leftovers by the worker after the schedule delay"
    )
    func freedOnCallersThread() throws {
        let freed = Freed()
        let clock = OTLPManualClock()
        let counters = OTLPTelemetryCounters()
        let sink = OTLPMemorySink()
        let stage = OTLPBatchStage(
            exporter: OTLPStreamExporter<OTLPScopedSpan>(sink: sink, resource: OTLPResource(), counters: counters),
            counters: counters, configuration: .init(maxQueueSize: 8, maxExportBatchSize: 2, scheduleDelaySeconds: 60),
            clock: clock)
        let tracer = OTLPTracer(stage: stage, scope: OTLPInstrumentationScope(name: "tests"))
        func end(_ name: String, tracked id: Int?) {
            let span = tracer.startSpan(name)
            if let id { span.attributes.set("tracked", value: .stringConvertible(Tracked(id, freed))) }
            span.end()
        }
        let caller = pthread_self()
        end("a", tracked: 0)
        end("b", tracked: 1)
        stage.forceFlush()
        // Exported, converted on the worker, and still held for a caller to free (else the worker does not wait
        // to free them, and the rest of the test would wait for that in vain).
        try #require(freed.byID.isEmpty)
        end("c", tracked: nil)
        #expect(Set(freed.byID.keys) == [0, 1])
        #expect(freed.byID.values.allSatisfy { pthread_equal($0, caller) != 0 })

        end("d", tracked: 3)
        stage.forceFlush()
        #expect(freed.byID[3] == nil)
        // No span ends for the schedule delay: the worker frees what callers left.
        clock.waitUntilWaiting(atLeast: 1)
        clock.advance(seconds: 60)
        #expect(freed.signal.wait(timeout: .now() + 60) == .success)  // 0 and 1 signalled before
        #expect(freed.signal.wait(timeout: .now() + 60) == .success)
        #expect(freed.signal.wait(timeout: .now() + 60) == .success)
        let worker = try #require(freed.byID[3])
        #expect(pthread_equal(worker, caller) == 0)
        stage.shutdown()
        let exported = spans(try readAll(sink.bytes))
        #expect(exported.map(\.name) == ["a", "b", "c", "d"])
        #expect(exported[0].attributes == [OTLPAttribute("tracked", "tracked 0")])
        #expect(counters.snapshot.spansExported == 4)
    }

    @Test("shutdown frees what callers had still to free, while the stage lives on")
    func freedAtShutdown() {
        let freed = Freed()
        let counters = OTLPTelemetryCounters()
        let stage = OTLPBatchStage(
            exporter: OTLPStreamExporter<OTLPScopedSpan>(sink: OTLPMemorySink(), resource: OTLPResource(), counters: counters),
            counters: counters, configuration: .init(maxQueueSize: 8, maxExportBatchSize: 1, scheduleDelaySeconds: 60),
            clock: OTLPManualClock())
        let tracer = OTLPTracer(stage: stage, scope: OTLPInstrumentationScope(name: "tests"))
        do {
            // The span itself holds its attributes too: gone before the stage's copy is the last.
            let span = tracer.startSpan("a")
            span.attributes.set("tracked", value: .stringConvertible(Tracked(0, freed)))
            span.end()
        }
        stage.forceFlush()
        #expect(freed.byID.isEmpty)
        stage.shutdown()
        #expect(freed.byID.keys.sorted() == [0])
        withExtendedLifetime(tracer) {}
    }
}
