public import Foundation
public import OTLPTelemetry

/// The app-level configuration of the instrumentation references, merged with the pipeline's into one
/// JSON file:
///
/// ```json
/// { "version": "1.0.0",
///   "rum": { "region": "us-west-2", "appMonitorId": "…" },
///   "application": { "applicationVersion": "3.14.0" },
///   "telemetry": { "startup": { "enabled": true }, "isSwiftUIViewInstrumentationEnabled": true },
///   "service": { "name": "shop" }, "traces": { "path": "traces.u32be.bin" } }
/// ```
/// The pipeline keys are those of ``OTLPTelemetryConfiguration``. Unknown keys are ignored with a warning;
/// a wrong type is an error naming the key path.
public struct OTLPAppConfiguration: Sendable, Equatable {
    /// The configuration format's version. Default `1.0.0`.
    public var version: String
    /// Region of the app monitor, if any (kept for compatibility; OTLPWire writes files).
    public var rumRegion: String?
    /// App monitor ID, if any.
    public var rumAppMonitorId: String?
    /// The app's version, reported as `service.version` when the pipeline sets none.
    public var applicationVersion: String?
    /// App launch instrumentation on. Default `true`.
    public var isStartupEnabled: Bool
    /// View tracing on. Default `true`.
    public var isViewInstrumentationEnabled: Bool
    /// The pipeline.
    public var telemetry: OTLPTelemetryConfiguration

    public init(
        version: String = "1.0.0", rumRegion: String? = nil, rumAppMonitorId: String? = nil, applicationVersion: String? = nil,
        isStartupEnabled: Bool = true, isViewInstrumentationEnabled: Bool = true, telemetry: OTLPTelemetryConfiguration = .init()
    ) {
        self.version = version
        self.rumRegion = rumRegion
        self.rumAppMonitorId = rumAppMonitorId
        self.applicationVersion = applicationVersion
        self.isStartupEnabled = isStartupEnabled
        self.isViewInstrumentationEnabled = isViewInstrumentationEnabled
        self.telemetry = telemetry
        if telemetry.service.version == nil, let applicationVersion { self.telemetry.service.version = applicationVersion }
    }

    private struct AppKeys: Decodable {
        struct Rum: Decodable { var region: String?; var appMonitorId: String? }
        struct Application: Decodable { var applicationVersion: String? }
        struct Telemetry: Decodable {
            struct Startup: Decodable { var enabled: Bool? }
            var startup: Startup?
            var isSwiftUIViewInstrumentationEnabled: Bool?
        }
        var version: String?
        var rum: Rum?
        var application: Application?
        var telemetry: Telemetry?
    }

    /// Reads one JSON document holding both parts. Returns warnings for unknown keys.
    public static func load(json: Data) throws(OTLPConfigurationError) -> (configuration: OTLPAppConfiguration, warnings: [String]) {
        let app: AppKeys
        do {
            app = try JSONDecoder().decode(AppKeys.self, from: json)
        } catch let error as DecodingError {
            throw OTLPConfigurationError(decodingError: error)
        } catch {
            throw OTLPConfigurationError(keyPath: "", message: "\(error)")
        }
        let (pipeline, pipelineWarnings) = try OTLPTelemetryConfiguration.load(json: json)
        let appTopLevel: Set<String> = ["version", "rum", "application", "telemetry"]
        var warnings = pipelineWarnings.filter { warning in
            !appTopLevel.contains { warning == "unknown configuration key \($0) (ignored)" || warning.hasPrefix("unknown configuration key \($0).") }
        }
        if let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] {
            let known: [String: Set<String>] = [
                "rum": ["region", "appMonitorId"], "application": ["applicationVersion"],
                "telemetry": ["startup", "isSwiftUIViewInstrumentationEnabled"],
            ]
            for (section, keys) in known.sorted(by: { $0.key < $1.key }) {
                guard let nested = object[section] as? [String: Any] else { continue }
                for key in nested.keys.sorted() where !keys.contains(key) {
                    warnings.append("unknown configuration key \(section).\(key) (ignored)")
                }
            }
            if let startup = (object["telemetry"] as? [String: Any])?["startup"] as? [String: Any] {
                for key in startup.keys.sorted() where key != "enabled" {
                    warnings.append("unknown configuration key telemetry.startup.\(key) (ignored)")
                }
            }
        }
        let configuration = OTLPAppConfiguration(
            version: app.version ?? "1.0.0", rumRegion: app.rum?.region, rumAppMonitorId: app.rum?.appMonitorId,
            applicationVersion: app.application?.applicationVersion, isStartupEnabled: app.telemetry?.startup?.enabled ?? true,
            isViewInstrumentationEnabled: app.telemetry?.isSwiftUIViewInstrumentationEnabled ?? true, telemetry: pipeline)
        return (configuration, warnings.sorted())
    }
}
