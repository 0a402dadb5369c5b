import Foundation
public import OTLPTelemetry
public import OTLPWire
public import Tracing

/// Keeps the app's current session and puts it on every span and log record: `session.id` (32 hexadecimal
/// digits), and `session.previous_id` on every item of a session that followed another. Install it as both
/// processors of the pipeline, and let it emit its events through the pipeline's emitter:
///
/// ```swift
/// let sessions = OTLPSessionManager(directory: appSupport.path)
/// let telemetry = OTLPTelemetry(configuration: configuration, spanProcessors: [sessions], logRecordProcessors: [sessions])
/// sessions.emitEvents(through: telemetry.logEmitter(scope: OTLPSessionManager.scope))
/// ```
///
/// - A session ends after ``OTLPSessionConfiguration/inactivityTimeoutSeconds`` without activity, once it is
///   ``OTLPSessionConfiguration/maxLengthSeconds`` old, or on ``endSession()``; the next activity is then in
///   a new session. Activity is any span started or record emitted, and ``recordActivity()`` (call it when
///   the app comes to the foreground).
/// - The semantic conventions' `session.start` and `session.end` events are emitted as log records with
///   their `event_name` and attributes, `session.end` before the next `session.start`. Events from before
///   ``emitEvents(through:)`` are held (at most 64) and emitted then.
/// - With a `directory`, the session is kept in the file `session` there (replaced atomically when a session
///   starts or ends, and as activity goes on, at most every minute or a tenth of the timeout): a relaunch
///   within the timeout continues the same session; a later one starts a new session (after the old one's
///   `session.end`, timed when it expired).
/// - Thread-safe; the clock and the ID source can be injected for tests. Without sessions
///   (``OTLPSessionConfiguration/enabled`` off) make none: nothing is then added anywhere.
public final class OTLPSessionManager: OTLPSpanProcessor, OTLPLogRecordProcessor, @unchecked Sendable {
    /// One session.
    public struct Session: Sendable, Equatable {
        /// 32 lowercase hexadecimal digits, random.
        public var id: String
        /// The session before this one, if it ended in this process or a recent one.
        public var previousID: String?
        /// When the session started.
        public var startUnixNano: UInt64
    }

    /// The attribute that carries the session's ID.
    public static let idAttribute = "session.id"
    /// The attribute that carries the previous session's ID.
    public static let previousIDAttribute = "session.previous_id"
    /// The `event_name` of the record emitted when a session starts.
    public static let startEventName = "session.start"
    /// The `event_name` of the record emitted when a session ends.
    public static let endEventName = "session.end"
    /// The instrumentation scope of the session events.
    public static let scope = OTLPInstrumentationScope(name: "otlpwire.sessions")
    /// Most events held before ``emitEvents(through:)`` is called; older ones are dropped.
    public static let maxHeldEvents = 64

    /// When sessions end (clamped into range).
    public let configuration: OTLPSessionConfiguration
    /// Where the session is kept across launches, or `nil`.
    public let directory: String?
    private let clock: any OTLPClock
    private let idGenerator: any OTLPIDGenerator
    private let lock = NSLock()
    private var session: Session
    private var lastActivityUnixNano: UInt64
    private var persistedActivityUnixNano: UInt64 = 0
    private var emitter: OTLPLogEmitter?
    private var heldEvents: [OTLPLogRecord] = []
    private var lastPersistenceError: OTLPWriteError?

    /// - Parameters:
    ///   - configuration: when sessions end; default ``OTLPSessionConfiguration/default``.
    ///   - directory: where the session is kept across launches (created if missing); `nil` keeps it in
    ///     memory only.
    ///   - clock: the time of activity and events (default: the system's real-time clock).
    ///   - idGenerator: the source of session IDs (a trace ID's 16 random bytes; default: random).
    public init(
        configuration: OTLPSessionConfiguration = .default, directory: String? = nil, clock: any OTLPClock = OTLPSystemClock(),
        idGenerator: any OTLPIDGenerator = OTLPRandomIDGenerator()
    ) {
        self.configuration = configuration.clamped
        self.directory = directory
        self.clock = clock
        self.idGenerator = idGenerator
        let now = clock.nowUnixNano()
        session = Session(id: "", previousID: nil, startUnixNano: now)
        lastActivityUnixNano = now
        if let directory {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        if let stored = directory.flatMap({ Self.read(Self.path(in: $0)) }) {
            session = stored.session
            lastActivityUnixNano = stored.lastActivityUnixNano
            persistedActivityUnixNano = stored.lastActivityUnixNano
            // A launch after the session expired: it ended then, and a new one starts now.
            if let endedAt = expiry(at: now) {
                roll(endedAt: endedAt, now: now)
            }
        } else {
            session.id = newID()
            holdOrEmit(event(Self.startEventName, at: now))
            persist()
        }
    }

    /// A manager as ``init(configuration:directory:clock:idGenerator:)`` makes it, or `nil` when the
    /// configuration turns sessions off (then install nothing: no attribute, no event, no cost).
    public static func make(
        configuration: OTLPSessionConfiguration, directory: String? = nil, clock: any OTLPClock = OTLPSystemClock(),
        idGenerator: any OTLPIDGenerator = OTLPRandomIDGenerator()
    ) -> OTLPSessionManager? {
        configuration.enabled ? OTLPSessionManager(configuration: configuration, directory: directory, clock: clock, idGenerator: idGenerator) : nil
    }

    /// Emits the session events through `emitter` from now on, the ones held so far first.
    public func emitEvents(through emitter: OTLPLogEmitter) {
        lock.withLock {
            self.emitter = emitter
            let held = heldEvents
            heldEvents.removeAll()
            for record in held { emitter.emit(record, context: nil) }
        }
    }

    /// The current session, as it is (no activity is recorded, nothing expires).
    public var currentSession: Session { lock.withLock { session } }

    /// The last error writing the session file, if any (the session goes on in memory).
    public var persistenceError: OTLPWriteError? { lock.withLock { lastPersistenceError } }

    /// Records activity now (the app came to the foreground, say) and returns the session it belongs to:
    /// a new one if the current one had expired.
    @discardableResult
    public func recordActivity() -> Session {
        lock.withLock { activeSession() }
    }

    /// Ends the current session now; the next activity belongs to a new one.
    public func endSession() {
        lock.withLock {
            let now = clock.nowUnixNano()
            roll(endedAt: now, now: now)
        }
    }

    // MARK: Processors

    /// Puts the session on the starting span (activity).
    public func onStart(_ span: OTLPTracingSpan, parentContext: InstrumentationContext) {
        let session = recordActivity()
        span.attributes[Self.idAttribute] = session.id
        if let previousID = session.previousID { span.attributes[Self.previousIDAttribute] = previousID }
    }

    /// Puts the session on the record (activity); a record that carries a `session.id` already (the
    /// session events among them) is left as it is.
    public func onEmit(_ record: inout OTLPScopedLogRecord, context: InstrumentationContext?) {
        guard !record.record.attributes.contains(where: { $0.key == Self.idAttribute }) else { return }
        let session = recordActivity()
        record.record.attributes.append(OTLPAttribute(Self.idAttribute, .string(session.id)))
        if let previousID = session.previousID {
            record.record.attributes.append(OTLPAttribute(Self.previousIDAttribute, .string(previousID)))
        }
    }

    /// Writes the session file once more, so a relaunch continues from the last activity.
    public func shutdown() {
        lock.withLock { persist() }
    }

    // MARK: Internals (called with the lock held, or from init)

    private func activeSession() -> Session {
        let now = clock.nowUnixNano()
        if let endedAt = expiry(at: now) {
            roll(endedAt: endedAt, now: now)
        } else if now > lastActivityUnixNano {
            lastActivityUnixNano = now
            if now - persistedActivityUnixNano >= persistIntervalNanos { persist() }
        }
        return session
    }

    /// When the current session ended if it has by `now`: after the inactivity timeout or at its maximum
    /// length, whichever came first; `nil` while it lasts.
    private func expiry(at now: UInt64) -> UInt64? {
        let inactiveEnd = lastActivityUnixNano &+ Self.nanos(configuration.inactivityTimeoutSeconds)
        let lengthEnd = session.startUnixNano &+ Self.nanos(configuration.maxLengthSeconds)
        let end = min(inactiveEnd, lengthEnd)
        return now >= end ? end : nil
    }

    /// Ends the current session at `endedAt` and starts the next one at `now`.
    private func roll(endedAt: UInt64, now: UInt64) {
        holdOrEmit(event(Self.endEventName, at: endedAt))
        session = Session(id: newID(), previousID: session.id, startUnixNano: now)
        lastActivityUnixNano = now
        holdOrEmit(event(Self.startEventName, at: now))
        persist()
    }

    private func event(_ name: String, at time: UInt64) -> OTLPLogRecord {
        var attributes = [OTLPAttribute(Self.idAttribute, .string(session.id))]
        if name == Self.startEventName, let previousID = session.previousID {
            attributes.append(OTLPAttribute(Self.previousIDAttribute, .string(previousID)))
        }
        return OTLPLogRecord(timeUnixNano: time, observedTimeUnixNano: time, severity: .info, attributes: attributes, eventName: name)
    }

    /// Emits now if an emitter is attached (its processors skip records with a session ID, so this never
    /// comes back into the lock), else holds the event.
    private func holdOrEmit(_ record: OTLPLogRecord) {
        if let emitter {
            emitter.emit(record, context: nil)
        } else {
            if heldEvents.count == Self.maxHeldEvents { heldEvents.removeFirst() }
            heldEvents.append(record)
        }
    }

    private func newID() -> String { idGenerator.newTraceID().hex }

    private var persistIntervalNanos: UInt64 { Self.nanos(min(60, configuration.inactivityTimeoutSeconds / 10)) }

    private static func nanos(_ seconds: Double) -> UInt64 { UInt64(seconds * 1e9) }

    private static func path(in directory: String) -> String {
        (directory.hasSuffix("/") ? directory : directory + "/") + "session"
    }

    /// Writes `ID START LAST PREVIOUS` (`-` for none), replacing the file atomically.
    private func persist() {
        guard let directory else { return }
        let line = "\(session.id) \(session.startUnixNano) \(lastActivityUnixNano) \(session.previousID ?? "-")\n"
        do throws(OTLPWriteError) {
            try OTLPAtomicFile.replace(Self.path(in: directory), with: Array(line.utf8))
            persistedActivityUnixNano = lastActivityUnixNano
            lastPersistenceError = nil
        } catch {
            lastPersistenceError = error
        }
    }

    /// The session a file holds, or `nil` if it holds none that can be read.
    private static func read(_ path: String) -> (session: Session, lastActivityUnixNano: UInt64)? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), text.utf8.count < 256 else { return nil }
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        guard fields.count == 4, isID(fields[0]), let start = UInt64(fields[1]), let last = UInt64(fields[2]), last >= start,
            fields[3] == "-" || isID(fields[3])
        else { return nil }
        return (Session(id: fields[0], previousID: fields[3] == "-" ? nil : fields[3], startUnixNano: start), last)
    }

    private static func isID(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
