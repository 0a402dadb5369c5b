import Foundation
import OTLPTelemetry

// The reference's keys of an app configuration document. Each level reports the keys it does not decode
// (``OTLPUnknownKeyCollector``), so the known keys are the `CodingKeys` below and nothing else.
extension OTLPAppConfiguration {
    struct AppKeys: Decodable {
        struct Rum: Decodable {
            enum CodingKeys: String, CodingKey, CaseIterable { case region, appMonitorId }
            var region: String?
            var appMonitorId: String?

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                try decoder.reportUnknownKeys(CodingKeys.self)
                region = try container.decodeIfPresent(String.self, forKey: .region)
                appMonitorId = try container.decodeIfPresent(String.self, forKey: .appMonitorId)
            }
        }

        struct Application: Decodable {
            enum CodingKeys: String, CodingKey, CaseIterable { case applicationVersion }
            var applicationVersion: String?

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                try decoder.reportUnknownKeys(CodingKeys.self)
                applicationVersion = try container.decodeIfPresent(String.self, forKey: .applicationVersion)
            }
        }

        struct Telemetry: Decodable {
            struct Startup: Decodable {
                enum CodingKeys: String, CodingKey, CaseIterable { case enabled }
                var enabled: Bool?

                init(from decoder: any Decoder) throws {
                    let container = try decoder.container(keyedBy: CodingKeys.self)
                    try decoder.reportUnknownKeys(CodingKeys.self)
                    enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled)
                }
            }

            enum CodingKeys: String, CodingKey, CaseIterable { case startup, isSwiftUIViewInstrumentationEnabled, sessions }
            var startup: Startup?
            var isSwiftUIViewInstrumentationEnabled: Bool?
            var sessions: OTLPSessionConfiguration?

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                try decoder.reportUnknownKeys(CodingKeys.self)
                startup = try container.decodeIfPresent(Startup.self, forKey: .startup)
                isSwiftUIViewInstrumentationEnabled = try container.decodeIfPresent(Bool.self, forKey: .isSwiftUIViewInstrumentationEnabled)
                sessions = try container.decodeIfPresent(OTLPSessionConfiguration.self, forKey: .sessions)
            }
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case version, rum, application, telemetry }
        var version: String?
        var rum: Rum?
        var application: Application?
        var telemetry: Telemetry?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            try decoder.reportUnknownKeys(CodingKeys.self)
            version = try container.decodeIfPresent(String.self, forKey: .version)
            rum = try container.decodeIfPresent(Rum.self, forKey: .rum)
            application = try container.decodeIfPresent(Application.self, forKey: .application)
            telemetry = try container.decodeIfPresent(Telemetry.self, forKey: .telemetry)
        }
    }
}
