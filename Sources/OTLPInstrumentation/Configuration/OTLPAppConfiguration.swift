public import Foundation
public import OTLPTelemetry

/// The app-level configuration of the instrumentation references, merged with the pipeline's into one
/// JSON file:
///
/// ```json
/// { "version": "1.0.0",
///   "rum": { "region": "us-west-2", "appMonitorId": "…" },
///   "application": { "applicationVersion": "3.14.0" },
///   "telemetry": { "startup": { "enabled": true }, "isSwiftUIViewInstrumentationEnabled": true,
///                  "sessions": { "inactivityTimeoutSeconds": 1800 } },
///   "service": { "name": "shop" }, "traces": { "path": "traces.u32be.bin" } }
/// ```
/// The pipeline keys are those of `OTLPTelemetryConfiguration`. Unknown keys are ignored with a warning;
/// a wrong type is an error naming the key path.
public struct OTLPAppConfiguration: Sendable, Equatable {
    /// The configuration format's version (`version`), as the file gives it. Default `1.0.0`.
    package var version: String
    /// Region of the app monitor (`rum.region`), if any: read from the file for compatibility, used by nothing
    /// (OTLPWire writes files).
    package var rumRegion: String?
    /// App monitor ID (`rum.appMonitorId`), if any: read from the file, used by nothing.
    package var rumAppMonitorId: String?
    /// The app's version (`application.applicationVersion`), as the file gives it: ``load(json:)`` makes it the
    /// pipeline's `service.version` when that has none.
    package var applicationVersion: String?
    /// App launch instrumentation on. Default `true`.
    public var isStartupEnabled: Bool
    /// View tracing on. Default `true`.
    public var isViewInstrumentationEnabled: Bool
    /// Sessions (`telemetry.sessions`): whether they are kept and when they end. Default
    /// `OTLPSessionConfiguration.default`.
    public var sessions: OTLPSessionConfiguration
    /// The pipeline.
    public var telemetry: OTLPTelemetryConfiguration

    /// Format version `1.0.0`, no app monitor or app version, both instrumentations and sessions on, the pipeline's
    /// `OTLPTelemetryConfiguration.default`: what an omitted argument or JSON key means.
    public static let `default` = OTLPAppConfiguration(
        isStartupEnabled: true,
        isViewInstrumentationEnabled: true, sessions: .default, telemetry: .default)

    /// A configuration with ``default``'s values unless given.
    public init(
        isStartupEnabled: Bool = OTLPAppConfiguration.default.isStartupEnabled,
        isViewInstrumentationEnabled: Bool = OTLPAppConfiguration.default.isViewInstrumentationEnabled,
        sessions: OTLPSessionConfiguration = OTLPAppConfiguration.default.sessions,
        telemetry: OTLPTelemetryConfiguration = OTLPAppConfiguration.default.telemetry
    ) {
        version = "1.0.0"
        self.isStartupEnabled = isStartupEnabled
        self.isViewInstrumentationEnabled = isViewInstrumentationEnabled
        self.sessions = sessions
        self.telemetry = telemetry
    }

    /// Reads one JSON document holding both parts. Unknown keys are ignored and listed in `warnings` (sorted
    /// by key path); a wrong type or an invalid value throws an error naming the key path.
    public static func load(
        json: Data
    ) throws(OTLPConfigurationError) -> (configuration: OTLPAppConfiguration, warnings: [OTLPConfigurationWarning]) {
        let app: AppKeys
        let unknownKeys = OTLPUnknownKeyCollector()
        do {
            let decoder = JSONDecoder()
            decoder.userInfo[OTLPUnknownKeyCollector.userInfoKey] = unknownKeys
            app = try decoder.decode(AppKeys.self, from: json)
        } catch let error as DecodingError {
            throw OTLPConfigurationError(decodingError: error)
        } catch {
            throw OTLPConfigurationError(keyPath: "", message: "\(error)")
        }
        if let sessions = app.telemetry?.sessions, let problem = sessions.violations(prefix: "telemetry.sessions.").first {
            throw problem
        }
        let (pipeline, pipelineWarnings) = try OTLPTelemetryConfiguration.load(json: json)
        // Each part reports the other's top-level keys as unknown: a top-level key is unknown when both do
        // (the pipeline's warning is kept), a nested one when the part that reads its section does.
        let appSections = Set(AppKeys.CodingKeys.allCases.map(\.stringValue))
        let warnings =
            pipelineWarnings.filter { $0.code != .unknownKey || $0.keyPath.count != 1 || !appSections.contains($0.keyPath[0]) }
            + unknownKeys.warnings.filter { $0.code != .unknownKey || $0.keyPath.count > 1 }
        let defaults = Self.default
        var configuration = OTLPAppConfiguration(
            isStartupEnabled: app.telemetry?.startup?.enabled ?? defaults.isStartupEnabled,
            isViewInstrumentationEnabled: app.telemetry?.isSwiftUIViewInstrumentationEnabled ?? defaults.isViewInstrumentationEnabled,
            sessions: app.telemetry?.sessions ?? defaults.sessions, telemetry: pipeline)
        configuration.version = app.version ?? defaults.version
        configuration.applicationVersion = app.application?.applicationVersion
        if configuration.telemetry.service.version == nil, let applicationVersion = configuration.applicationVersion {
            configuration.telemetry.service.version = applicationVersion
        }
        configuration.rumRegion = app.rum?.region
        configuration.rumAppMonitorId = app.rum?.appMonitorId
        return (configuration, warnings.sorted { $0.dottedKeyPath < $1.dottedKeyPath })
    }
}
