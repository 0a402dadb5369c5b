import Foundation
import Testing
import OTLPWire
@testable import OTLPTelemetry

/// Every configuration struct has one `default`: the inits' default arguments and the JSON decoding of an
/// absent key read it.
@Suite("Configuration defaults")
struct OTLPConfigurationDefaultsTests {
    static func decode<Value: OTLPConfigurationDecodable>(_ type: Value.Type, _ json: String = "{}") throws -> Value {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }

    @Test("an empty JSON object decodes to each struct's default")
    func emptyObjectIsDefault() throws {
        #expect(try Self.decode(OTLPTelemetryConfiguration.self) == .default)
        #expect(try Self.decode(OTLPTelemetryConfiguration.Service.self) == .default)
        #expect(try Self.decode(OTLPTelemetryConfiguration.Output.self) == .default)
        #expect(try Self.decode(OTLPTelemetryConfiguration.Rotation.self) == .default)
        #expect(try Self.decode(OTLPTelemetryConfiguration.Sampling.self) == .default)
        #expect(try Self.decode(OTLPBatchConfiguration.self) == .default)
        #expect(try Self.decode(OTLPLimits.self) == .default)
        #expect(try OTLPTelemetryConfiguration.load(json: Data("{}".utf8)).configuration == .default)
    }

    @Test("empty sections decode to their defaults inside the whole configuration")
    func emptySectionsAreDefault() throws {
        let json = #"{"service": {}, "traces": {}, "logs": {}, "rotation": {}, "batch": {}, "limits": {}, "sampling": {}}"#
        #expect(try Self.decode(OTLPTelemetryConfiguration.self, json) == .default)
    }

    @Test("an init without arguments equals the default")
    func initIsDefault() {
        #expect(OTLPTelemetryConfiguration() == .default)
        #expect(OTLPTelemetryConfiguration.Service() == .default)
        #expect(OTLPTelemetryConfiguration.Output() == .default)
        #expect(OTLPTelemetryConfiguration.Rotation() == .default)
        #expect(OTLPTelemetryConfiguration.Sampling() == .default)
        #expect(OTLPBatchConfiguration() == .default)
        #expect(OTLPLimits() == .default)
    }

    @Test("the composite default is made of its parts' defaults")
    func compositeDefault() {
        let defaults = OTLPTelemetryConfiguration.default
        #expect(defaults.service == .default && defaults.traces == .default && defaults.logs == .default)
        #expect(defaults.rotation == .default && defaults.batch == .default && defaults.limits == .default && defaults.sampling == .default)
        #expect(defaults.durability == .flush)
    }

    @Test("a default encodes to JSON that decodes back to it, with no warnings")
    func defaultRoundTrip() throws {
        let json = try JSONEncoder().encode(OTLPTelemetryConfiguration.default)
        let (configuration, warnings) = try OTLPTelemetryConfiguration.load(json: json)
        #expect(configuration == .default)
        #expect(warnings.isEmpty)
    }

    @Test("one argument changes one setting; the others keep the default")
    func oneArgument() {
        let batch = OTLPBatchConfiguration(maxQueueSize: 10)
        #expect(batch.maxQueueSize == 10)
        #expect(batch.maxExportBatchSize == OTLPBatchConfiguration.default.maxExportBatchSize)
        #expect(batch.scheduleDelaySeconds == OTLPBatchConfiguration.default.scheduleDelaySeconds)
        #expect(OTLPLimits(eventCountLimit: 3).attributeValueLengthLimit == OTLPLimits.defaultAttributeValueLength)
    }

    @Test("a NaN is clamped to the default it documents")
    func nanClampsToDefault() {
        let batch = OTLPBatchConfiguration(scheduleDelaySeconds: .nan, exportTimeoutSeconds: .nan).clamped
        #expect(batch.scheduleDelaySeconds == OTLPBatchConfiguration.default.scheduleDelaySeconds)
        #expect(batch.exportTimeoutSeconds == OTLPBatchConfiguration.default.exportTimeoutSeconds)
        #expect(OTLPTelemetryConfiguration.Rotation(maxAgeSeconds: .nan).clamped == .default)
        #expect(OTLPTelemetryConfiguration(sampling: .init(ratio: .nan)).clamped.sampling == .default)
    }
}
