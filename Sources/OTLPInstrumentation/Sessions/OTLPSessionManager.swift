import Foundation
public import OTLPTelemetry
public import OTLPWire
public import Tracing

/// Keeps the app's current session and puts it on every span and log record: `session.id` (32 hexadecimal
/// digits), and `session.previous_id` on every item of a session that followed another. Install it as both
/// processors of the pipeline, and let it emit its events through the pipeline's emitter:
///
/// ```swift
/// // Compiled copy: Tests/DocumentationExamples/OTLPInstrumentation/OTLPInstrumentationDocComments.swift
/// func telemetryKeepingSessions(configuration: OTLPTelemetryConfiguration, appSupport: URL) -> OTLPTelemetry {
///     let sessions = OTLPSessionManager(directory: appSupport.path)
///     let telemetry = OTLPTelemetry(configuration: configuration, spanProcessors: [sessions], logRecordProcessors: [sessions])
///     sessions.emitEvents(through: telemetry.logEmitter(scope: OTLPSessionManager.scope))
///     return telemetry
/// }
/// ```
///
/// - A session ends after ``OTLPSessionConfiguration/inactivityTimeoutSeconds`` without activity, once it is
///   ``OTLPSessionConfiguration/maxLengthSeconds`` old, or on ``endSession()``; the next activity is then in
///   a new session. Activity is any span started or adopted (`OTLPTracer.export(_:)`: a MetricKit
///   payload's spans carry the session in which they arrived) or record emitted, and ``recordActivity()``
///   (call it when the app comes to the foreground).
/// - The semantic conventions' `session.start` and `session.end` events are emitted as log records with
///   their `event_name` and attributes, `session.end` before the next `session.start`, outside the manager's
///   lock (processors may start spans or emit records while they run). Events from before
///   ``emitEvents(through:)`` are held (at most 64) and emitted then. An item made on another thread just
///   before a rollover may be exported after its session's `session.end`.
/// - The timeout and the maximum length are measured on a monotonic clock: a wall clock set back or ahead
///   neither ends a session nor keeps one going, nor causes any write. Events carry wall-clock times.
/// - With a `directory`, the session is kept in the file `session` there, written off the callers' threads
///   (replaced atomically when a session starts or ends, and as activity goes on, at most every minute or a
///   tenth of the timeout on the monotonic clock; at most one write waits, a later one taking its place): a
///   relaunch within the timeout continues the same session; a later one starts a new session (after the old
///   one's `session.end`, timed when it expired). The file holds wall-clock times, as the wall clock read when
///   it was written (a relaunch has no other clock to compare with). Read at launch, a session that starts in
///   the future (a file written under a clock set ahead, a clock set back) ends at once; one whose last
///   activity lies in the future counts as active at the launch, and the file is rewritten once.
/// - Activity is what the processors see: sampled spans (the tracer shows processors no others) and
///   records; at a sampling ratio of 0, call ``recordActivity()`` yourself.
/// - Thread-safe; the clocks and the ID source can be injected for tests. Without sessions
///   (``OTLPSessionConfiguration/enabled`` off) make none: nothing is then added anywhere.
public final class OTLPSessionManager: OTLPSpanProcessor, OTLPLogRecordProcessor, @unchecked Sendable {
    /// One session.
    public struct Session: Sendable, Equatable {
        /// 32 lowercase hexadecimal digits, random.
        public var id: String
        /// The session before this one, if it ended in this process or a recent one.
        package var previousID: String?
        /// When the session started, on the wall clock (for a session continued from the session file, as
        /// the file has it: the process that wrote it measured the session's age on its monotonic clock).
        package var startUnixNano: UInt64
    }

    /// The attribute that carries the session's ID.
    package static let idAttribute = "session.id"
    /// The attribute that carries the previous session's ID.
    package static let previousIDAttribute = "session.previous_id"
    /// The `event_name` of the record emitted when a session starts.
    package static let startEventName = "session.start"
    /// The `event_name` of the record emitted when a session ends.
    package static let endEventName = "session.end"
    /// The instrumentation scope of the session events.
    public static let scope = OTLPInstrumentationScope(name: "otlpwire.sessions")
    /// Most events held before ``emitEvents(through:)`` is called; older ones are dropped.
    package static let maxHeldEvents = 64

    /// When sessions end (clamped into range).
    package let configuration: OTLPSessionConfiguration
    /// Where the session is kept across launches, or `nil`.
    package let directory: String?
    private let clock: any OTLPClock
    /// Where the timeout, the maximum length and the interval between writes are measured.
    private let monotonicClock: any OTLPMonotonicClock
    private let idGenerator: any OTLPIDGenerator
    private let lock = NSLock()
    private var session: Session
    /// When the current session started, on ``monotonicClock``: only its distance to a later reading counts
    /// (taken wrapping: a session continued from the file may be older than the clock's zero, a reboot).
    private var startMonotonicNano: UInt64
    /// When the last activity was, on ``monotonicClock`` (as ``startMonotonicNano``).
    private var lastActivityMonotonicNano: UInt64
    /// When the session file was last queued for writing, on ``monotonicClock``; for a session continued
    /// from the file, when its last activity was (as ``startMonotonicNano``).
    private var persistedMonotonicNano: UInt64
    private var emitter: OTLPLogEmitter?
    /// Events not yet emitted, oldest first: emitted outside ``lock`` (the emitter runs the application's
    /// processors, which may start spans or emit records, coming back here).
    private var outbox: [OTLPLogRecord] = []
    /// Keeps events in order when several threads emit them; recursive, for a processor that comes back here.
    private let emission = NSRecursiveLock()
    /// Writes the session file off the callers' threads, in order.
    private let writer = DispatchQueue(label: "OTLPSessionManager.writer")
    /// The line the writer is to write next, while a write is queued: a later line replaces it, so at most one
    /// write waits however often the session is persisted.
    private var pendingLine: String?
    private var lastPersistenceError: OTLPWriteError?
    /// Writes of the session file asked for, and done by ``writer`` (see ``sessionFileWrites``).
    private var writesRequested = 0
    private var writesPerformed = 0

    /// - Parameters:
    ///   - configuration: when sessions end; default ``OTLPSessionConfiguration/default``.
    ///   - directory: where the session is kept across launches (created if missing); `nil` keeps it in
    ///     memory only.
    ///   - clock: the wall-clock time of activity, events and the session file (default: the system's real-time
    ///     clock). The timeout, the maximum length and the interval between writes of the file are measured on
    ///     `clock` too when it is a monotonic clock as well (as a test's `OTLPManualClock` is: moving it moves
    ///     both), and otherwise on the system's monotonic clock, which counts the time the device sleeps.
    ///   - idGenerator: the source of session IDs (a trace ID's 16 random bytes; default: random).
    ///
    /// When the configuration turns sessions off, install no manager (no attribute, no event, no cost).
    public convenience init(
        configuration: OTLPSessionConfiguration = .default, directory: String? = nil, clock: any OTLPClock = OTLPSystemClock(),
        idGenerator: any OTLPIDGenerator = OTLPRandomIDGenerator()
    ) {
        self.init(configuration: configuration, directory: directory, clock: clock, monotonicClock: nil, idGenerator: idGenerator)
    }

    /// ``init(configuration:directory:clock:idGenerator:)`` measuring intervals on `monotonicClock` (`nil`: as
    /// that initializer chooses).
    package init(
        configuration: OTLPSessionConfiguration, directory: String?, clock: any OTLPClock,
        monotonicClock: (any OTLPMonotonicClock)?, idGenerator: any OTLPIDGenerator
    ) {
        self.configuration = configuration.clamped
        self.directory = directory
        self.clock = clock
        let monotonicClock = monotonicClock ?? (clock as? any OTLPMonotonicClock) ?? OTLPSystemMonotonicClock()
        self.monotonicClock = monotonicClock
        self.idGenerator = idGenerator
        let now = Instant(unixNano: clock.nowUnixNano(), monotonicNano: monotonicClock.nowMonotonicNano())
        session = Session(id: "", previousID: nil, startUnixNano: now.unixNano)
        startMonotonicNano = now.monotonicNano
        lastActivityMonotonicNano = now.monotonicNano
        persistedMonotonicNano = now.monotonicNano
        if let directory {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        if let stored = directory.flatMap({ Self.read(Self.path(in: $0)) }) {
            session = stored.session
            continueStored(lastActivityUnixNano: stored.lastActivityUnixNano, now: now)
        } else {
            session.id = newID()
            outbox.append(event(Self.startEventName, at: now.unixNano))
            persist(at: now)
        }
    }

    /// A manager as ``init(configuration:directory:clock:idGenerator:)`` makes it, or `nil` when the
    /// configuration turns sessions off (then install nothing: no attribute, no event, no cost).
    package static func make(
        configuration: OTLPSessionConfiguration, directory: String? = nil, clock: any OTLPClock = OTLPSystemClock(),
        monotonicClock: (any OTLPMonotonicClock)? = nil, idGenerator: any OTLPIDGenerator = OTLPRandomIDGenerator()
    ) -> OTLPSessionManager? {
        guard configuration.enabled else { return nil }
        return OTLPSessionManager(
            configuration: configuration, directory: directory, clock: clock, monotonicClock: monotonicClock, idGenerator: idGenerator)
    }

    /// Emits the session events through `emitter` from now on, the ones held so far first.
    public func emitEvents(through emitter: OTLPLogEmitter) {
        lock.withLock { self.emitter = emitter }
        emitOutbox()
    }

    /// The current session, as it is (no activity is recorded, nothing expires).
    public var currentSession: Session { lock.withLock { session } }

    /// The last error writing the session file, if any (the session goes on in memory; the write is tried
    /// again at the next interval).
    public var persistenceError: OTLPWriteError? {
        writer.sync {}
        return lock.withLock { lastPersistenceError }
    }

    /// How many writes of the session file were asked for so far, and how many the writer did (after
    /// waiting for the queued one): fewer when a write waiting was replaced by a later one. For tests that
    /// count the work a fault causes.
    package var sessionFileWrites: (requested: Int, performed: Int) {
        writer.sync {}
        return lock.withLock { (writesRequested, writesPerformed) }
    }

    /// Records activity now (the app came to the foreground, say) and returns the session it belongs to:
    /// a new one if the current one had expired.
    @discardableResult
    public func recordActivity() -> Session {
        let (session, rolled) = lock.withLock { activeSession() }
        if rolled { emitOutbox() }
        return session
    }

    /// Ends the current session now; the next activity belongs to a new one.
    public func endSession() {
        lock.withLock {
            let now = readClocks()
            roll(endedAt: now.unixNano, now: now)
        }
        emitOutbox()
    }

    // MARK: Processors

    /// Puts the session on the starting span (activity).
    public func onStart(_ span: OTLPTracingSpan, parentContext: InstrumentationContext) {
        let session = recordActivity()
        span.attributes[Self.idAttribute] = session.id
        if let previousID = session.previousID { span.attributes[Self.previousIDAttribute] = previousID }
    }

    /// Puts the session first among the record's attributes, so that the attribute count limit keeps it
    /// (activity); a record that carries a `session.id` already (the session events among them) is left as
    /// it is.
    public func onEmit(_ record: inout OTLPScopedLogRecord, context: InstrumentationContext?) {
        stamp(&record.record.attributes)
    }

    /// Puts the session of now first among the attributes of a span made elsewhere (a MetricKit payload's:
    /// payloads describe past periods, so they carry the session in which they arrived), as for records.
    public func onAdopt(_ span: inout OTLPScopedSpan) {
        stamp(&span.span.attributes)
    }

    /// Inserts the session's attributes first (activity), unless a `session.id` is there already; a
    /// `session.previous_id` of the item's own gives way to the session's (keys are unique in OTLP).
    private func stamp(_ attributes: inout [OTLPAttribute]) {
        guard !attributes.contains(where: { $0.key == Self.idAttribute }) else { return }
        let session = recordActivity()
        var stamped = [OTLPAttribute(Self.idAttribute, .string(session.id))]
        if let previousID = session.previousID {
            attributes.removeAll { $0.key == Self.previousIDAttribute }
            stamped.append(OTLPAttribute(Self.previousIDAttribute, .string(previousID)))
        }
        attributes.insert(contentsOf: stamped, at: 0)
    }

    /// Emits the events waiting, writes the session file once more and waits for it (so a relaunch continues
    /// from the last activity), and lets go of the emitter, which holds this manager among its processors.
    /// Later events are held again.
    public func shutdown() {
        emitOutbox()
        lock.withLock {
            persist(at: readClocks())
            emitter = nil
        }
        writer.sync {}
    }

    // MARK: Internals (called with the lock held, or from init)

    /// A moment on both clocks: the wall-clock time goes into events and the file, the monotonic one measures.
    private struct Instant {
        var unixNano: UInt64
        var monotonicNano: UInt64
    }

    private func readClocks() -> Instant {
        Instant(unixNano: clock.nowUnixNano(), monotonicNano: monotonicClock.nowMonotonicNano())
    }

    /// Takes up the session read from the file (already in ``session``), whose wall-clock times are all there
    /// is to go by, once: a session that starts after `now` ends now; otherwise its age and idle time on the
    /// wall clock become distances on the monotonic clock (a last activity after `now` counting as now, and
    /// the file rewritten without it), and a session that expired meanwhile ends when it expired.
    private func continueStored(lastActivityUnixNano: UInt64, now: Instant) {
        guard session.startUnixNano <= now.unixNano else {
            roll(endedAt: now.unixNano, now: now)
            return
        }
        startMonotonicNano = now.monotonicNano &- (now.unixNano - session.startUnixNano)
        lastActivityMonotonicNano = now.monotonicNano &- (now.unixNano - min(lastActivityUnixNano, now.unixNano))
        persistedMonotonicNano = lastActivityMonotonicNano
        if let endedAt = expiry(at: now) {
            roll(endedAt: endedAt, now: now)
        } else if lastActivityUnixNano > now.unixNano {
            persist(at: now)
        }
    }

    /// The session of activity now, and whether the last one just ended.
    private func activeSession() -> (Session, Bool) {
        let now = readClocks()
        if let endedAt = expiry(at: now) {
            roll(endedAt: endedAt, now: now)
            return (session, true)
        }
        lastActivityMonotonicNano = now.monotonicNano
        // Written again once an interval has passed on the monotonic clock; the wall clock plays no part.
        if now.monotonicNano &- persistedMonotonicNano >= persistIntervalNanos { persist(at: now) }
        return (session, false)
    }

    /// When the current session ended, on the wall clock, if it has by `now`: after the inactivity timeout or
    /// at its maximum length, whichever came first, both measured on the monotonic clock; `nil` while it
    /// lasts. The time is `now`'s wall-clock time less how long ago (on the monotonic clock) the session ended.
    private func expiry(at now: Instant) -> UInt64? {
        let idleNanos = now.monotonicNano &- lastActivityMonotonicNano
        let ageNanos = now.monotonicNano &- startMonotonicNano
        let timeoutNanos = Self.nanos(configuration.inactivityTimeoutSeconds)
        let maxLengthNanos = Self.nanos(configuration.maxLengthSeconds)
        guard idleNanos >= timeoutNanos || ageNanos >= maxLengthNanos else { return nil }
        // The earlier of the two ends that passed is the longer ago.
        let agoNanos = max(
            idleNanos >= timeoutNanos ? idleNanos - timeoutNanos : 0, ageNanos >= maxLengthNanos ? ageNanos - maxLengthNanos : 0)
        return Self.subtracting(now.unixNano, agoNanos)
    }

    /// Ends the current session at `endedAt` (wall clock) and starts the next one at `now`.
    private func roll(endedAt: UInt64, now: Instant) {
        outbox.append(event(Self.endEventName, at: endedAt))
        session = Session(id: newID(), previousID: session.id, startUnixNano: now.unixNano)
        startMonotonicNano = now.monotonicNano
        lastActivityMonotonicNano = now.monotonicNano
        outbox.append(event(Self.startEventName, at: now.unixNano))
        // Held events beyond the bound go, oldest first (only before an emitter is attached).
        if emitter == nil, outbox.count > Self.maxHeldEvents { outbox.removeFirst(outbox.count - Self.maxHeldEvents) }
        persist(at: now)
    }

    private func event(_ name: String, at time: UInt64) -> OTLPLogRecord {
        var attributes = [OTLPAttribute(Self.idAttribute, .string(session.id))]
        if name == Self.startEventName, let previousID = session.previousID {
            attributes.append(OTLPAttribute(Self.previousIDAttribute, .string(previousID)))
        }
        return OTLPLogRecord(timeUnixNano: time, observedTimeUnixNano: time, severity: .info, attributes: attributes, eventName: name)
    }

    /// Emits the events waiting, in order, outside ``lock``: the emitter's processors may come back here.
    private func emitOutbox() {
        emission.lock()
        defer { emission.unlock() }
        while let (emitter, events) = takeOutbox() {
            for record in events { emitter.emit(record, context: nil) }
        }
    }

    /// The events waiting and the emitter for them, or `nil` when there are none or no emitter yet.
    private func takeOutbox() -> (OTLPLogEmitter, [OTLPLogRecord])? {
        lock.lock()
        defer { lock.unlock() }
        guard let emitter, !outbox.isEmpty else { return nil }
        let events = outbox
        outbox.removeAll()
        return (emitter, events)
    }

    private func newID() -> String { idGenerator.newTraceID().hex }

    private var persistIntervalNanos: UInt64 { Self.nanos(min(60, configuration.inactivityTimeoutSeconds / 10)) }

    private static func nanos(_ seconds: Double) -> UInt64 { UInt64(seconds * 1e9) }

    /// `a - b`, or 0 below it.
    private static func subtracting(_ a: UInt64, _ b: UInt64) -> UInt64 { a >= b ? a - b : 0 }

    private static func path(in directory: String) -> String {
        (directory.hasSuffix("/") ? directory : directory + "/") + "session"
    }

    /// Queues a write of `ID START LAST PREVIOUS` (`-` for none), replacing the file atomically, off the
    /// caller's thread. START and LAST are the session's start and last activity on the wall clock as it reads
    /// `now`: `now` less the session's age and idle time on the monotonic clock, so that a relaunch, which
    /// measures them on the wall clock, finds what this process measured (whatever was done to the wall clock
    /// meanwhile). At most one write waits: while one does, the new line takes the place of its line. A
    /// failed write is kept in ``persistenceError`` and tried again at the next interval.
    private func persist(at now: Instant) {
        persistedMonotonicNano = now.monotonicNano
        guard let directory else { return }
        let startUnixNano = Self.subtracting(now.unixNano, now.monotonicNano &- startMonotonicNano)
        let lastActivityUnixNano = Self.subtracting(now.unixNano, now.monotonicNano &- lastActivityMonotonicNano)
        writesRequested += 1
        let waiting = pendingLine != nil
        pendingLine = "\(session.id) \(startUnixNano) \(lastActivityUnixNano) \(session.previousID ?? "-")\n"
        if waiting { return }
        let path = Self.path(in: directory)
        writer.async { [self] in
            let line: String? = lock.withLock {
                defer { pendingLine = nil }
                return pendingLine
            }
            guard let line else { return }
            var failure: OTLPWriteError?
            do throws(OTLPWriteError) {
                try OTLPAtomicFile.replace(path, with: Array(line.utf8))
            } catch {
                failure = error
            }
            lock.withLock {
                lastPersistenceError = failure
                writesPerformed += 1
            }
        }
    }

    /// The session a file holds, or `nil` if it holds none that can be read. Reads a regular file only, and
    /// at most 256 bytes of it.
    private static func read(_ path: String) -> (session: Session, lastActivityUnixNano: UInt64)? {
        // Never waits on a FIFO or reads a device: a regular file, 256 bytes at most.
        guard let source = try? OTLPFileSource(regularFile: path) else { return nil }
        let (bytes, error) = source.readUpTo(257)
        guard error == nil, !bytes.isEmpty, bytes.count <= 256 else { return nil }
        let fields = String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
        // IDs as a trace ID's hex parses them, written back in lowercase.
        guard fields.count == 4, let id = OTLPTraceID(hex: fields[0])?.hex, let start = UInt64(fields[1]), let last = UInt64(fields[2]),
            last >= start
        else { return nil }
        let previousID: String?
        if fields[3] == "-" {
            previousID = nil
        } else if let parsed = OTLPTraceID(hex: fields[3]) {
            previousID = parsed.hex
        } else {
            return nil
        }
        return (Session(id: id, previousID: previousID, startUnixNano: start), last)
    }
}

/// The manager acts when spans start (and are adopted), not when they end: spans still have their
/// attributes converted off the application's thread.
extension OTLPSessionManager: OTLPStartOnlySpanProcessor {}
