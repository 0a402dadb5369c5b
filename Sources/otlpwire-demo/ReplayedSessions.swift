import Foundation
import OTLPInstrumentation
import OTLPTelemetry
import OTLPWire
import Tracing

/// The sessions of the replayed app. Each simulated process opens the session file with an
/// ``OTLPSessionManager`` of its own, as a relaunched app would, and closes it when the process ends; the
/// pipeline's processors stay in place and hand each span and record to the manager of the process running
/// then (to none between processes, nor for the demo's own cold start, whose clock is real). The file lives
/// in a directory of its own under the system's temporary directory, removed by ``removeDirectory()`` when
/// the demo ends (a killed demo leaves it): every run replays the app from a fresh install, and the output
/// directory holds telemetry only. A session file that cannot be written fails the demo (``persistenceError``).
final class ReplayedSessions: OTLPStartOnlySpanProcessor, OTLPLogRecordProcessor, @unchecked Sendable {
    let configuration: OTLPSessionConfiguration
    /// Where the replayed app keeps its session file.
    let directory: String
    let clock: any OTLPClock
    let idGenerator: any OTLPIDGenerator
    private let lock = NSLock()
    private var current: OTLPSessionManager?
    private var firstPersistenceError: OTLPWriteError?

    init(configuration: OTLPSessionConfiguration, clock: any OTLPClock, idGenerator: any OTLPIDGenerator) {
        self.configuration = configuration
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("otlpwire-demo-session-\(UUID().uuidString)").path
        self.clock = clock
        self.idGenerator = idGenerator
    }

    /// Removes the session directory (after the replay).
    func removeDirectory() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs one simulated process: its session manager reads the session file, emits its events through
    /// `telemetry`, sees the process's spans and records, and writes the file when the process ends.
    func process<Result>(telemetry: OTLPTelemetry, _ body: (OTLPSessionManager) -> Result) -> Result {
        let manager = OTLPSessionManager(configuration: configuration, directory: directory, clock: clock, idGenerator: idGenerator)
        lock.withLock { current = manager }
        manager.emitEvents(through: telemetry.logEmitter(scope: OTLPSessionManager.scope))
        defer {
            manager.shutdown()
            let error = manager.persistenceError
            lock.withLock {
                current = nil
                if firstPersistenceError == nil { firstPersistenceError = error }
            }
        }
        return body(manager)
    }

    /// The first error writing the session file, if any: the replay's sessions then did not carry over
    /// from one simulated process to the next.
    var persistenceError: OTLPWriteError? { lock.withLock { firstPersistenceError } }

    private var manager: OTLPSessionManager? { lock.withLock { current } }

    func onStart(_ span: OTLPTracingSpan, parentContext: InstrumentationContext) {
        manager?.onStart(span, parentContext: parentContext)
    }

    func onAdopt(_ span: inout OTLPScopedSpan) {
        manager?.onAdopt(&span)
    }

    func onEmit(_ record: inout OTLPScopedLogRecord, context: InstrumentationContext?) {
        manager?.onEmit(&record, context: context)
    }

    /// Nothing to do: each process's manager was shut down when the process ended.
    func shutdown() {}
}
