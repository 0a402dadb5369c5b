import Foundation
import Testing
@testable import OTLPTelemetry

/// Unknown keys: found by the decoding itself (each section's `CodingKeys`), reported as values with a key
/// path; the English line is only their description.
@Suite("Configuration warnings")
struct OTLPConfigurationWarningTests {
    static func warnings(_ json: String) throws -> [OTLPConfigurationWarning] {
        try OTLPTelemetryConfiguration.load(json: Data(json.utf8)).warnings
    }

    @Test("each unknown key is one warning with its key path, in key path order")
    func structured() throws {
        let warnings = try Self.warnings(
            """
            {"zeta": 1, "batch": {"maxQueueSise": 5, "maxQueueSize": 5000}, "service": {"nmae": "x", "attributes": {"free": "form"}},
             "limits": {"eventLimit": 1}, "traces": {"path": "t.bin", "x": {"y": 1}}, "sampling": {"ratio": 1, "seed": 3},
             "rotation": {"maxFile": 1}, "logs": {"gz": true}, "service.extra": 1}
            """)
        #expect(warnings.allSatisfy { $0.code == .unknownKey && $0.message == "ignored" })
        #expect(
            warnings.map(\.keyPath) == [
                ["batch", "maxQueueSise"], ["limits", "eventLimit"], ["logs", "gz"], ["rotation", "maxFile"], ["sampling", "seed"],
                ["service", "nmae"], ["service.extra"], ["traces", "x"], ["zeta"],
            ])
    }

    @Test("the description is the English line warnings always printed")
    func description() throws {
        let warnings = try Self.warnings(#"{"tracing": {}, "batch": {"size": 1}, "service.extra": 1}"#)
        #expect(
            warnings.map(\.description) == [
                "unknown configuration key batch.size (ignored)", "unknown configuration key service.extra (ignored)",
                "unknown configuration key tracing (ignored)",
            ])
        #expect(OTLPConfigurationWarning.unknownKey(["a", "b.c"]).description == "unknown configuration key a.b.c (ignored)")
        #expect(OTLPConfigurationWarning.unknownKey(["a", "b.c"]).dottedKeyPath == "a.b.c")
    }

    @Test("a dotted key at the top is one element, not a path")
    func dottedKey() throws {
        let warnings = try Self.warnings(#"{"batch.maxQueueSize": 1}"#)
        #expect(warnings == [.unknownKey(["batch.maxQueueSize"])])
    }

    @Test("every key the encoder writes is known: the check reads the decoding's keys")
    func everyEncodedKeyIsKnown() throws {
        var configuration = OTLPTelemetryConfiguration.default
        configuration.service = .init(name: "n", version: "v", attributes: ["a": "b"])
        configuration.traces.path = "t.bin"
        configuration.logs.path = "l.bin"
        let json = try JSONEncoder().encode(configuration)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(Set(object.keys) == Set(OTLPTelemetryConfiguration.CodingKeys.allCases.map(\.stringValue)))
        #expect(try OTLPTelemetryConfiguration.load(json: json).warnings.isEmpty)
    }

    @Test("values that are not objects and free-form maps are not searched for keys")
    func notObjects() throws {
        #expect(try Self.warnings(#"{"traces": null, "service": {"attributes": {"any.key": "v"}}}"#).isEmpty)
    }

    @Test("decoding outside load(json:) reports nothing and still works")
    func plainDecoding() throws {
        let batch = try JSONDecoder().decode(OTLPBatchConfiguration.self, from: Data(#"{"maxQueueSize": 9, "unknown": 1}"#.utf8))
        #expect(batch.maxQueueSize == 9)
    }

    @Test("codes compare by kind")
    func codes() {
        #expect(OTLPConfigurationWarning.Code.unknownKey == .unknownKey)
        #expect("\(OTLPConfigurationWarning.Code.unknownKey)" == "unknown configuration key")
    }
}
