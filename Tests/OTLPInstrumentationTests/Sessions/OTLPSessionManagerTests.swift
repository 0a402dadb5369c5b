import Foundation
import OTLPInstrumentation
import OTLPTelemetry
import OTLPTesting
import OTLPWire
import Testing
import Tracing
import OTLPTestSupport

/// Sessions with a manual clock: start, continuation, expiry by inactivity and by length, explicit end,
/// persistence across launches, events, and many threads at a rollover.
@Suite("OTLPSessionManager")
struct OTLPSessionManagerTests {
    /// Keeps what reaches the pipeline's export stage.
    final class Recorder<Item: OTLPExportable>: OTLPExportStage, @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [Item] = []
        var items: [Item] { lock.withLock { stored } }
        func onEnd(_ item: Item) { lock.withLock { stored.append(item) } }
        func forceFlush() -> Bool { true }
        func shutdown() {}
    }

    /// A manager, a tracer and an emitter wired as OTLPTelemetry wires them, over recorders; shut down when
    /// the test lets go of it (the manager and its events' emitter hold each other until then).
    final class Rig: Sendable {
        let clock = OTLPManualClock()
        let spans = Recorder<OTLPScopedSpan>()
        let records = Recorder<OTLPScopedLogRecord>()
        let manager: OTLPSessionManager
        let tracer: OTLPTracer
        let emitter: OTLPLogEmitter

        init(timeoutSeconds: Double = 10, maxLengthSeconds: Double = 100, directory: String? = nil, clock: OTLPManualClock? = nil) {
            let clock = clock ?? self.clock
            manager = OTLPSessionManager(
                configuration: OTLPSessionConfiguration(inactivityTimeoutSeconds: timeoutSeconds, maxLengthSeconds: maxLengthSeconds),
                directory: directory, clock: clock, idGenerator: OTLPSequentialIDGenerator())
            tracer = OTLPTracer(stage: spans, scope: .init(name: "test"), clock: clock, spanProcessors: [manager])
            emitter = OTLPLogEmitter(stage: records, scope: .init(name: "test"), clock: clock, logRecordProcessors: [manager])
            manager.emitEvents(
                through: OTLPLogEmitter(stage: records, scope: OTLPSessionManager.scope, clock: clock, logRecordProcessors: [manager]))
        }

        deinit { manager.shutdown() }

        /// The session attributes of the spans, in order.
        var spanSessions: [(id: String?, previous: String?)] {
            spans.items.map { ($0.span.attributes.string("session.id"), $0.span.attributes.string("session.previous_id")) }
        }

        /// The session events, in order: name, session.id, session.previous_id, time.
        var events: [(name: String, id: String?, previous: String?, time: UInt64)] {
            records.items.filter { !$0.record.eventName.isEmpty }.map {
                (
                    $0.record.eventName, $0.record.attributes.string("session.id"), $0.record.attributes.string("session.previous_id"),
                    $0.record.timeUnixNano
                )
            }
        }
    }

    static func id(_ n: UInt64) -> String { OTLPTraceID(high: 0, low: n).hex }

    @Test(
        "a session starts, continues while active, expires after the inactivity timeout; the next one names the previous; events in order")
    func inactivity() throws {
        let rig = Rig()
        let start = rig.clock.nowUnixNano()
        rig.tracer.startSpan("a").end()
        rig.clock.advance(seconds: 9)
        rig.tracer.startSpan("b").end()  // 9 s after a: same session
        rig.clock.advance(seconds: 9.5)
        rig.emitter.emit(OTLPLogRecord(timeUnixNano: 1, body: "c"))  // 9.5 s after b: same session
        let lastActivity = rig.clock.nowUnixNano()
        rig.clock.advance(seconds: 10)
        rig.tracer.startSpan("d").end()  // 10 s idle: a new session
        #expect(rig.spanSessions.map(\.id) == [Self.id(1), Self.id(1), Self.id(2)])
        #expect(rig.spanSessions.map(\.previous) == [nil, nil, Self.id(1)])
        let record = try #require(rig.records.items.first { $0.record.body == "c" })
        #expect(record.record.attributes.string("session.id") == Self.id(1))
        let events = rig.events
        #expect(events.map(\.name) == ["session.start", "session.end", "session.start"])
        #expect(events.map(\.id) == [Self.id(1), Self.id(1), Self.id(2)])
        #expect(events.map(\.previous) == [nil, nil, Self.id(1)])
        #expect(events[0].time == start && events[1].time == lastActivity + 10_000_000_000)
    }

    @Test("a session ends at its maximum length however active; endSession() ends it at once")
    func maximumLengthAndExplicitEnd() {
        let rig = Rig(timeoutSeconds: 10, maxLengthSeconds: 25)
        for _ in 0..<4 {
            rig.tracer.startSpan("busy").end()
            rig.clock.advance(seconds: 8)
        }
        // 32 s after the start, never 10 s idle: the second session began at the fourth span (24 s < 25 s: no).
        #expect(rig.spanSessions.map(\.id) == [Self.id(1), Self.id(1), Self.id(1), Self.id(1)])
        rig.tracer.startSpan("late").end()
        #expect(rig.spanSessions.last?.id == Self.id(2))
        rig.manager.endSession()
        rig.tracer.startSpan("after end").end()
        #expect(rig.spanSessions.last?.id == Self.id(3) && rig.spanSessions.last?.previous == Self.id(2))
        #expect(rig.events.map(\.name) == ["session.start", "session.end", "session.start", "session.end", "session.start"])
    }

    @Test(
        "the session is kept across launches: within the timeout the same one goes on; later a new one starts after the old one's end event"
    )
    func persistence() throws {
        let directory = OTLPTemporaryDirectory.unusedPath("otlp-sessions").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = OTLPManualClock()
        let first = Rig(directory: directory, clock: clock)
        first.tracer.startSpan("first launch").end()
        first.manager.shutdown()
        clock.advance(seconds: 6)
        let warm = Rig(directory: directory, clock: clock)
        warm.tracer.startSpan("warm relaunch").end()
        #expect(warm.spanSessions.map(\.id) == [Self.id(1)])
        #expect(warm.events.isEmpty, "the session goes on: no event")
        let lastActivity = clock.nowUnixNano()
        warm.manager.shutdown()
        clock.advance(seconds: 30)
        let cold = Rig(directory: directory, clock: clock)
        cold.tracer.startSpan("cold launch").end()
        // A new manager's IDs count from 1 again (sequential generator): the new session is its first ID.
        #expect(cold.spanSessions.first?.previous == Self.id(1))
        let events = cold.events
        #expect(events.map(\.name) == ["session.end", "session.start"])
        #expect(events[0].id == Self.id(1) && events[0].time == lastActivity + 10_000_000_000)
        #expect(events[1].previous == Self.id(1))
        #expect(first.manager.persistenceError == nil && cold.manager.persistenceError == nil)
    }

    @Test(
        "16 threads emitting while the session rolls over: every item carries exactly one session ID, the old one before the rollover, the new one after"
    )
    func threadsAtRollover() {
        let rig = Rig(timeoutSeconds: 60)
        let before = DispatchGroup(), after = DispatchGroup()
        let release = DispatchSemaphore(value: 0)
        for thread in 0..<16 {
            before.enter()
            after.enter()
            Thread.detachNewThread {
                for index in 0..<200 {
                    if index % 2 == 0 {
                        rig.tracer.startSpan("t\(thread) \(index)").end()
                    } else {
                        rig.emitter.emit(OTLPLogRecord(timeUnixNano: 1, body: .string("t\(thread) \(index)")))
                    }
                }
                before.leave()
                release.wait()
                for index in 200..<400 {
                    if index % 2 == 0 {
                        rig.tracer.startSpan("t\(thread) \(index)").end()
                    } else {
                        rig.emitter.emit(OTLPLogRecord(timeUnixNano: 1, body: .string("t\(thread) \(index)")))
                    }
                }
                after.leave()
            }
        }
        before.wait()
        rig.clock.advance(seconds: 61)
        for _ in 0..<16 { release.signal() }
        after.wait()
        func index(_ text: String) -> Int { Int(text.split(separator: " ").last!)! }
        func ids(_ attributes: [OTLPAttribute]) -> [String] {
            attributes.filter { $0.key == "session.id" }.compactMap { attribute -> String? in
                guard case .string(let text)? = attribute.value else { return nil }
                return text
            }
        }
        var items: [(index: Int, ids: [String])] = rig.spans.items.map { (index($0.span.name), ids($0.span.attributes)) }
        items += rig.records.items.filter { $0.record.eventName.isEmpty }.map { record in
            guard case .string(let body)? = record.record.body else { return (-1, []) }
            return (index(body), ids(record.record.attributes))
        }
        #expect(items.count == 16 * 400)
        let wrong = items.filter { $0.ids != [$0.index < 200 ? Self.id(1) : Self.id(2)] }
        #expect(wrong.isEmpty, "\(wrong.prefix(3))")
        #expect(rig.events.map(\.name) == ["session.start", "session.end", "session.start"])
    }

    @Test(
        "sessions off: no manager is made, so nothing carries a session and no event is emitted; the JSON keys are read under telemetry.sessions"
    )
    func configuration() throws {
        #expect(OTLPSessionManager.make(configuration: OTLPSessionConfiguration(enabled: false)) == nil)
        #expect(OTLPSessionManager.make(configuration: .default) != nil)
        let (loaded, warnings) = try OTLPAppConfiguration.load(
            json: Data(
                #"""
                {"telemetry": {"sessions": {"enabled": false, "inactivityTimeoutSeconds": 60, "maxLengthSeconds": 600, "color": 1}}}
                """#.utf8))
        #expect(loaded.sessions == OTLPSessionConfiguration(enabled: false, inactivityTimeoutSeconds: 60, maxLengthSeconds: 600))
        #expect(warnings.map(\.dottedKeyPath) == ["telemetry.sessions.color"])
        #expect(try OTLPAppConfiguration.load(json: Data("{}".utf8)).configuration.sessions == .default)
        do {
            _ = try OTLPAppConfiguration.load(json: Data(#"{"telemetry": {"sessions": {"enabled": "yes"}}}"#.utf8))
            Issue.record("a wrong type was accepted")
        } catch {
            #expect(error.keyPath == "telemetry.sessions.enabled")
        }
        #expect(
            OTLPSessionConfiguration(inactivityTimeoutSeconds: 0, maxLengthSeconds: .nan).clamped
                == OTLPSessionConfiguration(inactivityTimeoutSeconds: 1, maxLengthSeconds: 14_400))
    }
}

/// Regressions from a hostile review.
@Suite("OTLPSessionManager, hostile")
struct OTLPSessionManagerHostileTests {
    typealias Recorder = OTLPSessionManagerTests.Recorder

    /// A clock that can be set back, as NTP may.
    final class SettableClock: OTLPClock, @unchecked Sendable {
        private let lock = NSLock()
        private var now: UInt64 = 1_700_000_000_000_000_000
        func nowUnixNano() -> UInt64 { lock.withLock { now } }
        func set(_ value: UInt64) { lock.withLock { now = value } }
    }

    /// Keeps only `app.*` attributes (a privacy allow-list), before the manager.
    struct Allowlist: OTLPLogRecordProcessor {
        func onEmit(_ record: inout OTLPScopedLogRecord, context: InstrumentationContext?) {
            record.record.attributes = record.record.attributes.filter { $0.key.hasPrefix("app.") }
        }
    }

    /// Starts a span for every record it sees (a processor that times its own work).
    struct Timed: OTLPLogRecordProcessor {
        let tracer: OTLPTracer
        func onEmit(_ record: inout OTLPScopedLogRecord, context: InstrumentationContext?) { tracer.startSpan("timed").end() }
    }

    /// Runs `body` on a thread of its own; whether it finished within 20 s.
    static func finishes(_ body: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            done.signal()
        }
        return done.wait(timeout: .now() + 20) == .success
    }

    static func directory() -> String {
        OTLPTemporaryDirectory.unusedPath("otlp-sessions").path
    }

    @Test(
        "events are emitted outside the manager's lock: processors that remove session.id or start spans do not deadlock it (regression: they hung the thread)"
    )
    func noDeadlock() {
        let clock = OTLPManualClock()
        let records = Recorder<OTLPScopedLogRecord>()
        let spans = Recorder<OTLPScopedSpan>()
        let manager = OTLPSessionManager(
            configuration: .init(inactivityTimeoutSeconds: 10), clock: clock, idGenerator: OTLPSequentialIDGenerator())
        let tracer = OTLPTracer(stage: spans, scope: .init(name: "t"), clock: clock, spanProcessors: [manager])
        let emitter = OTLPLogEmitter(
            stage: records, scope: OTLPSessionManager.scope, clock: clock,
            logRecordProcessors: [Allowlist(), manager, Timed(tracer: tracer)])
        let finished = Self.finishes {
            manager.emitEvents(through: emitter)
            clock.advance(seconds: 11)
            tracer.startSpan("after the timeout").end()  // rolls over: events emitted, their processors start spans
            manager.endSession()
            manager.shutdown()
        }
        #expect(finished)
        #expect(records.items.map(\.record.eventName) == ["session.start", "session.end", "session.start", "session.end", "session.start"])
    }

    @Test("the clock set back while the session file cannot be written: no trap (regression: an unsigned subtraction underflowed)")
    func clockBackWithFailingWrites() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = SettableClock()
        let manager = OTLPSessionManager(configuration: .init(inactivityTimeoutSeconds: 10), directory: directory, clock: clock)
        #expect(manager.persistenceError == nil)
        try FileManager.default.removeItem(atPath: directory + "/session")
        try FileManager.default.createDirectory(atPath: directory + "/session", withIntermediateDirectories: false)
        clock.set(clock.nowUnixNano() - 1_000_000_000)
        manager.endSession()
        #expect(manager.persistenceError != nil)
        clock.set(clock.nowUnixNano() + 1)
        let session = manager.recordActivity()
        #expect(session == manager.currentSession)
    }

    @Test(
        "a session file from the future (a clock set ahead when it was written) is not continued: a new session starts (regression: it never expired)"
    )
    func fileFromTheFuture() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let clock = OTLPManualClock()
        let future = clock.nowUnixNano() + 365 * 86_400 * 1_000_000_000
        let stored = OTLPSessionManagerTests.id(99)
        try Data("\(stored) \(future) \(future) -\n".utf8).write(to: URL(fileURLWithPath: directory + "/session"))
        let manager = OTLPSessionManager(directory: directory, clock: clock, idGenerator: OTLPSequentialIDGenerator())
        #expect(manager.currentSession.previousID == stored && manager.currentSession.id != stored)
    }

    @Test("a session file that is huge, a FIFO or a directory is not read whole or waited on: a new session starts")
    func hostileSessionFiles() throws {
        for kind in ["huge", "fifo", "directory"] {
            let directory = Self.directory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let path = directory + "/session"
            switch kind {
            case "huge": try Data(repeating: 0x61, count: 50 << 20).write(to: URL(fileURLWithPath: path))
            case "fifo": #expect(mkfifo(path, 0o600) == 0)
            default: try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            }
            let finished = Self.finishes {
                let manager = OTLPSessionManager(directory: directory, clock: OTLPManualClock(), idGenerator: OTLPSequentialIDGenerator())
                precondition(manager.currentSession.previousID == nil)
            }
            #expect(finished, "\(kind)")
        }
    }

    @Test("at the attribute count limit a log record keeps its session.id (regression: appended last, it was cut)")
    func limitKeepsSessionOnRecords() {
        let clock = OTLPManualClock()
        let records = Recorder<OTLPScopedLogRecord>()
        let manager = OTLPSessionManager(clock: clock, idGenerator: OTLPSequentialIDGenerator())
        let emitter = OTLPLogEmitter(
            stage: records, scope: .init(name: "t"), clock: clock, limits: OTLPLimits(attributeCountLimit: 2),
            logRecordProcessors: [manager])
        emitter.emit(OTLPLogRecord(timeUnixNano: 1, body: "x", attributes: [OTLPAttribute("a", "1"), OTLPAttribute("b", "2")]))
        let record = records.items.first?.record
        #expect(record?.attributes.first == OTLPAttribute("session.id", .string(OTLPSessionManagerTests.id(1))))
        #expect(record?.droppedAttributesCount == 1)
    }

    @Test("at the attribute count limit a span keeps its session.id, set first when it started (regression: sorted by key, it was cut)")
    func limitKeepsSessionOnSpans() {
        let clock = OTLPManualClock()
        let spans = OTLPSessionManagerTests.Recorder<OTLPScopedSpan>()
        let manager = OTLPSessionManager(clock: clock, idGenerator: OTLPSequentialIDGenerator())
        defer { manager.shutdown() }
        let tracer = OTLPTracer(
            stage: spans, scope: .init(name: "t"), clock: clock, limits: OTLPLimits(attributeCountLimit: 2), spanProcessors: [manager])
        let span = tracer.startSpan("s")
        span.attributes["a"] = "1"
        span.attributes["b"] = "2"
        span.end()
        let exported = spans.items.first?.span
        #expect(exported?.attributes == [OTLPAttribute("a", "1"), OTLPAttribute("session.id", .string(OTLPSessionManagerTests.id(1)))])
        #expect(exported?.droppedAttributesCount == 1)
    }

    @Test("a record or adopted span with a session.previous_id of its own gets the session's instead, once (regression: the key twice)")
    func ownPreviousIDGivesWay() {
        let rig = OTLPSessionManagerTests.Rig()
        rig.manager.endSession()
        rig.emitter.emit(OTLPLogRecord(timeUnixNano: 1, body: "x", attributes: [OTLPAttribute("session.previous_id", "app-set")]))
        rig.tracer.export(
            OTLPSpan(
                traceID: OTLPTraceID(high: 0, low: 9), spanID: OTLPSpanID(9), name: "adopted", startTimeUnixNano: 1, endTimeUnixNano: 2,
                attributes: [OTLPAttribute("a", "1"), OTLPAttribute("session.previous_id", "app-set")]))
        let record = rig.records.items.first { $0.record.body == "x" }?.record
        let span = rig.spans.items.first { $0.span.name == "adopted" }?.span
        let previous = OTLPAttribute("session.previous_id", .string(OTLPSessionManagerTests.id(1)))
        #expect(record?.attributes == [OTLPAttribute("session.id", .string(OTLPSessionManagerTests.id(2))), previous])
        #expect(
            span?.attributes == [OTLPAttribute("session.id", .string(OTLPSessionManagerTests.id(2))), previous, OTLPAttribute("a", "1")])
    }

    @Test("a processor given for both signals is shut down once, before the pipeline (regression: twice, after it)")
    func shutdownOnce() throws {
        final class Counter: OTLPSpanProcessor, OTLPLogRecordProcessor, @unchecked Sendable {
            let lock = NSLock()
            var count = 0
            func shutdown() { lock.withLock { count += 1 } }
        }
        let counter = Counter()
        let telemetry = OTLPTelemetry(
            configuration: .init(), spanProcessors: [counter], logRecordProcessors: [counter], diagnostics: { _ in })
        telemetry.shutdown()
        #expect(counter.count == 1)
    }

    @Test(
        "telemetry.sessions durations out of range, or a maximum length under the timeout, are errors naming the key (regression: accepted)"
    )
    func jsonRanges() {
        for (json, key) in [
            (#"{"inactivityTimeoutSeconds": -5}"#, "telemetry.sessions.inactivityTimeoutSeconds"),
            (#"{"maxLengthSeconds": 1e300}"#, "telemetry.sessions.maxLengthSeconds"),
            (#"{"inactivityTimeoutSeconds": 600, "maxLengthSeconds": 60}"#, "telemetry.sessions.maxLengthSeconds"),
        ] {
            do {
                _ = try OTLPAppConfiguration.load(json: Data(#"{"telemetry": {"sessions": \#(json)}}"#.utf8))
                Issue.record("accepted: \(json)")
            } catch {
                #expect(error.keyPath == key, "\(json): \(error)")
            }
        }
    }
}

extension [OTLPAttribute] {
    /// The string value of the first attribute named `key`.
    fileprivate func string(_ key: String) -> String? {
        guard case .string(let text)? = first(where: { $0.key == key })?.value else { return nil }
        return text
    }
}
