import Foundation
import OTLPInstrumentation
import OTLPTelemetry
import OTLPWire

/// The demo's clock for replayed launches: it moves only when the replay says time passes, so a replay
/// takes no real time and, started at a fixed instant, gives byte-stable output. It is the replay's monotonic
/// clock too: the replayed sessions' timeouts pass in replayed time.
final class SimulatedClock: OTLPClock, OTLPMonotonicClock, @unchecked Sendable {
    private let lock = NSLock()
    private var now: UInt64

    init(startUnixNano: UInt64) {
        now = startUnixNano
    }

    func nowUnixNano() -> UInt64 { lock.withLock { now } }

    func nowMonotonicNano() -> UInt64 { nowUnixNano() }

    func advance(milliseconds: Double) {
        lock.withLock { now += UInt64(milliseconds * 1_000_000) }
    }
}

extension AppLaunchProvider {
    /// A launch provider for a replayed process that "started" at a given instant.
    static func replayed(coldLaunchStartTime: Date) -> AppLaunchProvider {
        AppLaunchProvider(coldLaunchStartTime: coldLaunchStartTime, launchMilestones: [OTLPAppLifecycle.didFinishLaunching])
    }
}

/// Sequential IDs for the deterministic mode.
final class CountingIDGenerator: OTLPIDGenerator, @unchecked Sendable {
    private let lock = NSLock()
    private var next: UInt64 = 0x1000

    func newTraceID() -> OTLPTraceID {
        lock.withLock {
            next += 1; return OTLPTraceID(high: 0x0d3e_0000_0000_0000, low: next)
        }
    }
    func newSpanID() -> OTLPSpanID {
        lock.withLock {
            next += 1; return OTLPSpanID(next)
        }
    }
}
