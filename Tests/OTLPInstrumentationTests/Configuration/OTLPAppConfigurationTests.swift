import Foundation
import Testing
import OTLPTelemetry
@testable import OTLPInstrumentation

@Suite("OTLPAppConfiguration")
struct OTLPAppConfigurationTests {
    @Test("the reference keys and the pipeline keys come from one document")
    func merged() throws {
        let (configuration, warnings) = try OTLPAppConfiguration.load(
            json: Data(
                """
                {"version": "1.0.0", "rum": {"region": "us-west-2", "appMonitorId": "abc"},
                 "application": {"applicationVersion": "3.14.0"},
                 "telemetry": {"startup": {"enabled": false}, "isSwiftUIViewInstrumentationEnabled": false},
                 "service": {"name": "shop"}, "traces": {"path": "t.bin"}}
                """.utf8))
        #expect(warnings.isEmpty)
        #expect(configuration.rumRegion == "us-west-2" && configuration.rumAppMonitorId == "abc")
        #expect(!configuration.isStartupEnabled && !configuration.isViewInstrumentationEnabled)
        #expect(configuration.telemetry.service.name == "shop" && configuration.telemetry.traces.path == "t.bin")
        #expect(configuration.telemetry.service.version == "3.14.0")  // the app version when the pipeline sets none
    }

    @Test("defaults: both instrumentations on")
    func defaults() throws {
        let (configuration, _) = try OTLPAppConfiguration.load(json: Data("{}".utf8))
        #expect(configuration == OTLPAppConfiguration())
        #expect(configuration.isStartupEnabled && configuration.isViewInstrumentationEnabled)
    }

    @Test("unknown keys at any level are ignored with a warning naming them")
    func unknownKeys() throws {
        let (_, warnings) = try OTLPAppConfiguration.load(
            json: Data(
                """
                {"rum": {"regoin": "x"}, "telemetry": {"startup": {"enabled": true, "fast": 1}, "metrickit": {}}, "colour": "blue"}
                """.utf8))
        #expect(
            warnings.map(\.description) == [
                "unknown configuration key colour (ignored)", "unknown configuration key rum.regoin (ignored)",
                "unknown configuration key telemetry.metrickit (ignored)", "unknown configuration key telemetry.startup.fast (ignored)",
            ])
    }

    @Test("an empty document, and every init default, is the default")
    func emptyIsDefault() throws {
        let (configuration, warnings) = try OTLPAppConfiguration.load(json: Data("{}".utf8))
        #expect(configuration == .default)
        #expect(warnings.isEmpty)
        #expect(OTLPAppConfiguration() == .default)
        #expect(OTLPAppConfiguration.default.telemetry == .default)
        let empty = try OTLPAppConfiguration.load(json: Data(#"{"rum": {}, "application": {}, "telemetry": {"startup": {}}}"#.utf8))
        #expect(empty.configuration == .default && empty.warnings.isEmpty)
    }

    @Test("unknown keys are values: code and key path from both parts, sorted by key path")
    func structuredWarnings() throws {
        let (_, warnings) = try OTLPAppConfiguration.load(
            json: Data(
                """
                {"rum": {"regoin": "x"}, "telemetry": {"startup": {"fast": 1}}, "batch": {"size": 1}, "colour": "blue"}
                """.utf8))
        #expect(warnings.allSatisfy { $0.code == .unknownKey })
        #expect(warnings.map(\.keyPath) == [["batch", "size"], ["colour"], ["rum", "regoin"], ["telemetry", "startup", "fast"]])
    }

    @Test("a top-level key that only starts like a section is unknown too")
    func dottedTopLevelKey() throws {
        let (_, warnings) = try OTLPAppConfiguration.load(json: Data(#"{"rum.region": "x", "rum": {"region": "y"}}"#.utf8))
        #expect(warnings == [.unknownKey(["rum.region"])])
    }

    @Test(
        "wrong types are rejected with the key path",
        arguments: [
            (#"{"telemetry": {"startup": {"enabled": "yes"}}}"#, "telemetry.startup.enabled"),
            (#"{"telemetry": {"isSwiftUIViewInstrumentationEnabled": 1}}"#, "telemetry.isSwiftUIViewInstrumentationEnabled"),
            (#"{"application": {"applicationVersion": 3}}"#, "application.applicationVersion"),
            (#"{"batch": {"maxQueueSize": true}}"#, "batch.maxQueueSize"),
        ])
    func wrongTypes(json: String, keyPath: String) {
        #expect { try OTLPAppConfiguration.load(json: Data(json.utf8)) } throws: { ($0 as! OTLPConfigurationError).keyPath == keyPath }
    }
}
