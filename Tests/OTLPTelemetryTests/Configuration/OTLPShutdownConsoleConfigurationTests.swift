import Foundation
import OTLPWire
import Testing
import Tracing

@testable import OTLPTelemetry

/// The two top-level settings of living beside swift-log and of ending in time: `consoleLogging` and
/// `shutdownTimeoutSeconds` (configuration keys only: the OpenTelemetry specification has no variable for
/// either).
@Suite("consoleLogging and shutdownTimeoutSeconds")
struct OTLPShutdownConsoleConfigurationTests {
    @Test("defaults: the console kept, 5 s to shut down")
    func defaults() throws {
        let (configuration, warnings) = try OTLPTelemetryConfiguration.load(json: Data("{}".utf8))
        #expect(configuration.consoleLogging && configuration.shutdownTimeoutSeconds == 5 && warnings.isEmpty)
        #expect(OTLPTelemetryConfiguration.default.consoleLogging && OTLPTelemetryConfiguration.default.shutdownTimeoutSeconds == 5)
    }

    @Test("read from JSON, and written back")
    func json() throws {
        let (configuration, warnings) = try OTLPTelemetryConfiguration.load(
            json: Data(#"{"consoleLogging": false, "shutdownTimeoutSeconds": 2.5}"#.utf8))
        #expect(!configuration.consoleLogging && configuration.shutdownTimeoutSeconds == 2.5 && warnings.isEmpty)
        let again = try OTLPTelemetryConfiguration.load(json: try JSONEncoder().encode(configuration)).configuration
        #expect(again == configuration)
    }

    @Test("shutdownTimeoutSeconds outside 0.1...86,400 is refused naming the key; set in code, it is clamped and reported")
    func range() throws {
        for (json, got) in [(#"{"shutdownTimeoutSeconds": 0}"#, "0"), (#"{"shutdownTimeoutSeconds": 1e6}"#, "1000000")] {
            #expect {
                try OTLPTelemetryConfiguration.load(json: Data(json.utf8))
            } throws: { error in
                (error as? OTLPConfigurationError)?.description
                    == "configuration key shutdownTimeoutSeconds: must be between 0.1 and 86400 seconds, got \(got)"
            }
        }
        #expect {
            try OTLPTelemetryConfiguration.load(json: Data(#"{"consoleLogging": "no"}"#.utf8))
        } throws: { error in
            (error as? OTLPConfigurationError)?.keyPath == "consoleLogging"
        }
        let messages = Messages()
        let telemetry = OTLPTelemetry(configuration: .init(shutdownTimeoutSeconds: 0), diagnostics: messages.add)
        #expect(telemetry.configuration.shutdownTimeoutSeconds == 0.1)
        #expect(messages.all.contains { $0.contains("shutdownTimeoutSeconds") }, "\(messages.all)")
        telemetry.shutdown()
        let nan = OTLPTelemetry(configuration: .init(shutdownTimeoutSeconds: .nan), diagnostics: { _ in })
        #expect(nan.configuration.shutdownTimeoutSeconds == 5)
        nan.shutdown()
    }

    @Test("only the first shutdown() works and reports: a second one (after a ServiceGroup's) returns at once")
    func secondShutdown() throws {
        let messages = Messages()
        let telemetry = OTLPTelemetry(
            configuration: .init(traces: .init(path: "/dev/null/traces.u32be.bin")), diagnostics: messages.add)
        telemetry.tracer.startSpan("lost").end()
        telemetry.shutdown()
        telemetry.shutdown()
        #expect(messages.all.filter { $0.contains("dropped data") }.count == 1, "\(messages.all)")
        #expect(telemetry.counters.snapshot.spansDropped == [.writeFailed: 1])
    }
}
