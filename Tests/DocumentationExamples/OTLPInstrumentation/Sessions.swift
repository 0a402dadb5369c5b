// OTLPInstrumentation.docc/Sessions.md.
import Foundation
import OTLPInstrumentation
import OTLPTelemetry

func startTelemetryWithSessions(
    configurationPath: String, sessionDirectory: String
) throws -> (telemetry: OTLPTelemetry, sessions: OTLPSessionManager?) {
    let (app, warnings) = try OTLPAppConfiguration.load(json: Data(contentsOf: URL(fileURLWithPath: configurationPath)))
    for warning in warnings { print(warning) }
    let sessions = app.sessions.enabled ? OTLPSessionManager(configuration: app.sessions, directory: sessionDirectory) : nil
    let telemetry = OTLPTelemetry(
        configuration: app.telemetry, spanProcessors: sessions.map { [$0] } ?? [], logRecordProcessors: sessions.map { [$0] } ?? [])
    sessions?.emitEvents(through: telemetry.logEmitter(scope: OTLPSessionManager.scope))
    return (telemetry, sessions)
}
