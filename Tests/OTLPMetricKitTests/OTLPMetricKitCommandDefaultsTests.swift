import ArgumentParser
import Foundation
import OTLPMetricKit
import Testing
@testable import otlp_metrickit

/// otlp-metrickit's converter options read their defaults from `MetricKitConverter.Options.default`.
@Suite("otlp-metrickit option defaults")
struct OTLPMetricKitCommandDefaultsTests {
    @Test("without options, the converter options are the library's defaults")
    func defaults() throws {
        let command = try OTLPMetricKitCommand.parse(["/nonexistent/payload.json", "--traces", "-"])
        #expect(command.converterOptions == MetricKitConverter.Options.default)
        #expect(MetricKitConverter.Options() == .default)
    }

    @Test("an option changes its setting only")
    func oneOption() throws {
        let command = try OTLPMetricKitCommand.parse(["/nonexistent/payload.json", "--traces", "-", "--max-payload-depth", "12"])
        var expected = MetricKitConverter.Options.default
        expected.maxPayloadNestingDepth = 12
        #expect(command.converterOptions == expected)
    }
}
