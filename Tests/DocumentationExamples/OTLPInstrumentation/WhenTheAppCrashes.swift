// OTLPInstrumentation.docc/WhenTheAppCrashes.md.
import OTLPInstrumentation
import OTLPTelemetry

func startTelemetryRecoveringCrashes(stateDirectory: String) -> OTLPTelemetry {
    let sessions = OTLPSessionManager(directory: stateDirectory)
    let telemetry = OTLPTelemetry(
        configuration: .init(traces: .init(path: "traces.u32be.bin")), spanProcessors: [sessions], logRecordProcessors: [sessions])
    do {
        // Before any span: what the previous process started and never exported is exported first.
        let recovery = try telemetry.openSpanJournal(directory: stateDirectory)
        print("recovered \(recovery.spans.count) spans of the previous run")
    } catch {
        print("spans are not journaled: \(error)")  // another process holds the directory
    }
    sessions.emitEvents(through: telemetry.logEmitter(scope: OTLPSessionManager.scope))
    return telemetry
}
