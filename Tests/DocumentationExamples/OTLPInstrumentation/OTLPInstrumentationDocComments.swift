// The examples in the doc comments of OTLPInstrumentation's types (Sources/OTLPInstrumentation).
import Foundation
import OTLPInstrumentation
import OTLPTelemetry

func telemetryKeepingSessions(configuration: OTLPTelemetryConfiguration, appSupport: URL) -> OTLPTelemetry {
    let sessions = OTLPSessionManager(directory: appSupport.path)
    let telemetry = OTLPTelemetry(configuration: configuration, spanProcessors: [sessions], logRecordProcessors: [sessions])
    sessions.emitEvents(through: telemetry.logEmitter(scope: OTLPSessionManager.scope))
    return telemetry
}
