// OTLPTelemetry.docc/Diagnostics.md.
import Foundation
import OTLPTelemetry
import Tracing

final class DiagnosticLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

func collectDiagnostics() -> [String] {
    let log = DiagnosticLog()
    var configuration = OTLPTelemetryConfiguration(traces: .init(path: "/dev/null/traces.u32be.bin"))  // under a device: cannot be made
    configuration.batch.maxQueueSize = 0  // out of range: reported, and clamped to 1
    let telemetry = OTLPTelemetry(configuration: configuration, diagnostics: { line in log.append(line) })

    telemetry.tracer.withSpan("lost") { _ in }
    telemetry.shutdown()  // reports what was dropped
    print(telemetry.counters.snapshot.spansDropped)  // [write_failed: 1]
    return log.all
}
