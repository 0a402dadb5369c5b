import Foundation
import OTLPInstrumentation
import OTLPTelemetry
import OTLPTesting
import OTLPWire
import Testing
import Tracing

/// The wall clock set back or ahead, and session files with times in the future: sessions are measured on the
/// monotonic clock, each fault is handled once, and the session file is written at most once per interval
/// (regressions: every item rewrote the file durably, the writes queued without bound, and shutdown waited
/// for all of them). The wall clock is a settable one, the monotonic clock a manual one; nothing sleeps.
@Suite("OTLPSessionManager, clocks")
struct OTLPSessionManagerClockTests {
    typealias SettableClock = OTLPSessionManagerHostileTests.SettableClock
    typealias Recorder = OTLPSessionManagerTests.Recorder

    static let minuteNanos: UInt64 = 60_000_000_000

    /// A manager over `directory` with a 30-minute timeout (so a write at most every minute) and 4 hours at
    /// most, on the two clocks.
    static func manager(directory: String, wall: SettableClock, monotonic: OTLPManualClock) -> OTLPSessionManager {
        OTLPSessionManager(
            configuration: OTLPSessionConfiguration(inactivityTimeoutSeconds: 1_800, maxLengthSeconds: 14_400), directory: directory,
            clock: wall, monotonicClock: monotonic, idGenerator: OTLPSequentialIDGenerator())
    }

    /// The session file's fields: ID, start, last activity, previous ID.
    static func sessionFile(
        in directory: String
    ) throws -> (id: String, startUnixNano: UInt64, lastActivityUnixNano: UInt64, previous: String) {
        let fields = try String(contentsOfFile: directory + "/session", encoding: .utf8).split(whereSeparator: { $0 == " " || $0 == "\n" })
        try #require(fields.count == 4)
        let start = try #require(UInt64(fields[1]))
        let lastActivity = try #require(UInt64(fields[2]))
        return (String(fields[0]), start, lastActivity, String(fields[3]))
    }

    @Test(
        "the wall clock set back 15 minutes inside a session: 6,000 items over 5 minutes write the file once a minute, the session goes on, and a relaunch under that clock continues it (regression: every item wrote the file)"
    )
    func wallClockSetBack() throws {
        let directory = OTLPSessionManagerHostileTests.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let wall = SettableClock(), monotonic = OTLPManualClock()
        let manager = Self.manager(directory: directory, wall: wall, monotonic: monotonic)
        let tracer = OTLPTracer(stage: Recorder<OTLPScopedSpan>(), scope: .init(name: "t"), clock: wall, spanProcessors: [manager])
        let session = manager.currentSession
        #expect(manager.sessionFileWrites.requested == 1, "the new session")
        wall.set(wall.nowUnixNano() - 15 * Self.minuteNanos)
        for index in 0..<6_000 {
            if index % 2 == 0 { manager.recordActivity() } else { tracer.startSpan("item \(index)").end() }
            monotonic.advance(50_000_000)
        }
        // Items from 0 to 299.95 s on the monotonic clock: written again at 60, 120, 180 and 240 s.
        let writes = manager.sessionFileWrites
        #expect(writes.requested == 1 + 4)
        #expect(writes.performed >= 1 && writes.performed <= writes.requested)
        #expect(manager.currentSession == session)
        manager.shutdown()
        #expect(manager.sessionFileWrites.requested == 1 + 4 + 1)
        // The file holds the session on the wall clock as it reads now: 300 s old, idle since the last item.
        let file = try Self.sessionFile(in: directory)
        #expect(file.id == session.id)
        #expect(file.startUnixNano == wall.nowUnixNano() - 300_000_000_000)
        #expect(file.lastActivityUnixNano == wall.nowUnixNano() - 50_000_000)
        #expect(manager.persistenceError == nil)
        let relaunched = Self.manager(directory: directory, wall: wall, monotonic: OTLPManualClock())
        defer { relaunched.shutdown() }
        #expect(relaunched.currentSession.id == session.id, "a relaunch a moment later goes on with the session")
        #expect(relaunched.sessionFileWrites.requested == 0, "nothing to correct: no write at launch")
    }

    @Test(
        "the wall clock jumping an hour ahead inside a session neither ends it nor writes the file; the monotonic clock alone ends it, timed on the wall clock as it reads (regression: the jump ended the session)"
    )
    func wallClockJumpsAhead() throws {
        let directory = OTLPSessionManagerHostileTests.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let wall = SettableClock(), monotonic = OTLPManualClock()
        let records = Recorder<OTLPScopedLogRecord>()
        let manager = Self.manager(directory: directory, wall: wall, monotonic: monotonic)
        defer { manager.shutdown() }
        manager.emitEvents(
            through: OTLPLogEmitter(stage: records, scope: OTLPSessionManager.scope, clock: wall, logRecordProcessors: [manager]))
        let session = manager.currentSession
        wall.set(wall.nowUnixNano() + 60 * Self.minuteNanos)
        for _ in 0..<3_000 {
            monotonic.advance(10_000_000)
            manager.recordActivity()
        }
        #expect(manager.currentSession == session)
        #expect(manager.sessionFileWrites.requested == 1, "30 s of monotonic time: no interval passed")
        #expect(records.items.map(\.record.eventName) == [OTLPSessionManager.startEventName])
        // 30 minutes and 1 second idle on the monotonic clock (the wall clock stands still): the session ended 1 s ago.
        monotonic.advance(30 * Self.minuteNanos + 1_000_000_000)
        let next = manager.recordActivity()
        #expect(next.previousID == session.id && next.startUnixNano == wall.nowUnixNano())
        let events = records.items.map(\.record)
        #expect(
            events.map(\.eventName) == [
                OTLPSessionManager.startEventName, OTLPSessionManager.endEventName, OTLPSessionManager.startEventName,
            ])
        #expect(events[1].timeUnixNano == wall.nowUnixNano() - 1_000_000_000)
        #expect(manager.sessionFileWrites.requested == 2, "the rollover, once")
    }

    @Test(
        "a session file whose last activity lies in the future is taken up once: the session goes on, the file is rewritten once without it, and 5,000 items write nothing more (regression: every item wrote the file)"
    )
    func lastActivityFromTheFuture() throws {
        let directory = OTLPSessionManagerHostileTests.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let wall = SettableClock(), monotonic = OTLPManualClock()
        let stored = OTLPSessionManagerTests.id(99)
        let start = wall.nowUnixNano() - 5 * Self.minuteNanos
        let future = wall.nowUnixNano() + 365 * 86_400 * 1_000_000_000
        try Data("\(stored) \(start) \(future) -\n".utf8).write(to: URL(fileURLWithPath: directory + "/session"))
        let manager = Self.manager(directory: directory, wall: wall, monotonic: monotonic)
        defer { manager.shutdown() }
        #expect(manager.currentSession.id == stored && manager.currentSession.startUnixNano == start)
        #expect(manager.sessionFileWrites.requested == 1, "rewritten once at launch")
        let file = try Self.sessionFile(in: directory)
        #expect(file.id == stored && file.startUnixNano == start && file.lastActivityUnixNano == wall.nowUnixNano())
        for _ in 0..<5_000 {
            manager.recordActivity()
            monotonic.advance(1_000_000)
        }
        #expect(manager.sessionFileWrites.requested == 1, "5 s of monotonic time: no interval passed")
        #expect(manager.currentSession.id == stored)
        // Counted as active at the launch: it ends 30 minutes after its last activity on the monotonic clock.
        monotonic.advance(30 * Self.minuteNanos)
        #expect(manager.recordActivity().previousID == stored)
    }

    @Test("a session file that starts in the future ends once at launch; the items after it write nothing more")
    func startFromTheFuture() throws {
        let directory = OTLPSessionManagerHostileTests.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let wall = SettableClock(), monotonic = OTLPManualClock()
        let stored = OTLPSessionManagerTests.id(99)
        let future = wall.nowUnixNano() + 365 * 86_400 * 1_000_000_000
        try Data("\(stored) \(future) \(future) -\n".utf8).write(to: URL(fileURLWithPath: directory + "/session"))
        let manager = Self.manager(directory: directory, wall: wall, monotonic: monotonic)
        defer { manager.shutdown() }
        let session = manager.currentSession
        #expect(session.previousID == stored && session.startUnixNano == wall.nowUnixNano())
        for _ in 0..<5_000 {
            manager.recordActivity()
            monotonic.advance(1_000_000)
        }
        #expect(manager.currentSession == session)
        #expect(manager.sessionFileWrites.requested == 1, "the new session, once")
        #expect(try Self.sessionFile(in: directory).id == session.id)
    }

    @Test(
        "shutdown after 10,000 items under a wall clock set back writes once: two writes in all, the new session's and shutdown's (regression: thousands queued before it)"
    )
    func shutdownAfterClockSetBack() throws {
        let directory = OTLPSessionManagerHostileTests.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let wall = SettableClock(), monotonic = OTLPManualClock()
        let manager = Self.manager(directory: directory, wall: wall, monotonic: monotonic)
        wall.set(wall.nowUnixNano() - 15 * Self.minuteNanos)
        for _ in 0..<10_000 { manager.recordActivity() }
        manager.shutdown()
        let writes = manager.sessionFileWrites
        #expect(writes.requested == 2)
        #expect(writes.performed >= 1 && writes.performed <= 2)
        #expect(try Self.sessionFile(in: directory).lastActivityUnixNano == wall.nowUnixNano())
    }

    @Test(
        "1,000 sessions ended in a row: no more writes are done than asked for, and the file holds the last session after shutdown (a waiting write takes the latest line)"
    )
    func burstOfRollovers() throws {
        let directory = OTLPSessionManagerHostileTests.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let wall = SettableClock(), monotonic = OTLPManualClock()
        let manager = Self.manager(directory: directory, wall: wall, monotonic: monotonic)
        for _ in 0..<1_000 { manager.endSession() }
        manager.shutdown()
        let writes = manager.sessionFileWrites
        #expect(writes.requested == 1 + 1_000 + 1)
        #expect(writes.performed >= 1 && writes.performed <= writes.requested)
        let file = try Self.sessionFile(in: directory)
        #expect(file.id == manager.currentSession.id && file.previous == manager.currentSession.previousID)
        #expect(manager.currentSession.id == OTLPSessionManagerTests.id(1_001))
    }
}
