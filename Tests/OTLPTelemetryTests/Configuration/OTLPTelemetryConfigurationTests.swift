import Foundation
import Testing
import OTLPWire
@testable import OTLPTelemetry

@Suite("OTLPTelemetryConfiguration")
struct OTLPTelemetryConfigurationTests {
    func load(
        _ json: String
    ) throws(OTLPConfigurationError) -> (configuration: OTLPTelemetryConfiguration, warnings: [OTLPConfigurationWarning]) {
        try OTLPTelemetryConfiguration.load(json: Data(json.utf8))
    }

    @Test("an empty document gives the documented defaults")
    func defaults() throws {
        let (configuration, warnings) = try load("{}")
        #expect(configuration == OTLPTelemetryConfiguration())
        #expect(
            configuration.batch == .init(maxQueueSize: 2048, maxExportBatchSize: 512, scheduleDelaySeconds: 5, exportTimeoutSeconds: 30))
        #expect(configuration.durability == .flush && configuration.rotation.maxFiles == 5)
        #expect(warnings.isEmpty)
    }

    @Test("every key is read; unknown keys are ignored with a warning naming them")
    func full() throws {
        let (configuration, warnings) = try load(
            """
            {"service": {"name": "checkout", "version": "1.2", "attributes": {"deployment.environment.name": "prod"}},
             "traces": {"path": "t.bin", "framing": "varint", "gzip": true}, "logs": {"path": "stderr", "framing": "jsonl"},
             "durability": "fsync", "rotation": {"maxFileBytes": 1000, "maxAgeSeconds": 60, "maxFiles": 3},
             "batch": {"maxQueueSize": 100, "maxExportBatchSize": 10}, "tracing": {}, "rotation2": 1,
             "service.extra": 1, "traces2": {"x": 1}}
            """)
        #expect(configuration.service.name == "checkout" && configuration.service.attributes == ["deployment.environment.name": "prod"])
        #expect(configuration.traces == .init(path: "t.bin", framing: .varint, gzip: true))
        #expect(configuration.logs.framing == .jsonl)
        #expect(configuration.durability == .fsync)
        #expect(configuration.rotation == .init(maxFileBytes: 1000, maxAgeSeconds: 60, maxFiles: 3))
        #expect(configuration.batch.maxQueueSize == 100 && configuration.batch.scheduleDelaySeconds == 5)
        #expect(warnings.count == 4)
        #expect(warnings.map(\.description).contains("unknown configuration key tracing (ignored)"))
    }

    @Test(
        "wrong types and invalid values name the key",
        arguments: [
            (#"{"batch": {"maxQueueSize": "many"}}"#, "batch.maxQueueSize"),
            (#"{"traces": {"framing": "protobuf"}}"#, "traces.framing"),
            (#"{"durability": "always"}"#, "durability"),
            (#"{"rotation": {"maxFiles": 0}}"#, "rotation.maxFiles"),
            (#"{"batch": {"maxQueueSize": 10, "maxExportBatchSize": 20}}"#, "batch.maxExportBatchSize"),
            (#"{"traces": {"path": "a"}, "logs": {"path": "a"}}"#, "logs.path"),
            (#"{"service": {"name": 5}}"#, "service.name"),
            (#"{"traces": {"gzip": "yes"}}"#, "traces.gzip"),
        ])
    func invalid(json: String, keyPath: String) {
        #expect {
            try load(json)
        } throws: { error in
            let error = error as! OTLPConfigurationError
            return error.keyPath == keyPath && error.description.contains(keyPath)
        }
    }

    @Test("not JSON at all is a clear error")
    func notJSON() {
        #expect { try load("{nope") } throws: { ($0 as! OTLPConfigurationError).message.hasPrefix("not valid JSON") }
    }
}
