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
        let command = try OTLPMetricKitCommand.parse(["/nonexistent/payload.json", "--traces", "-", "--max-payload-nesting-depth", "12"])
        var expected = MetricKitConverter.Options.default
        expected.maxPayloadNestingDepth = 12
        #expect(command.converterOptions == expected)
    }

    @Test("--max-payload-depth, the former name of --max-payload-nesting-depth, is refused; the help shows the option with its default")
    func formerName() throws {
        let command = try OTLPMetricKitCommand.parse(["/nonexistent/payload.json", "--traces", "-", "--max-payload-nesting-depth", "9"])
        #expect(command.converterOptions.maxPayloadNestingDepth == 9)
        #expect(throws: (any Error).self) {
            try OTLPMetricKitCommand.parse(["/nonexistent/payload.json", "--traces", "-", "--max-payload-depth", "9"])
        }
        #expect(throws: (any Error).self) {
            try OTLPMetricKitCommand.parse(["/nonexistent/payload.json", "--traces", "-", "--max-payload-nesting-depth", "0"])
        }
        let help = OTLPMetricKitCommand.helpMessage(columns: 1000)
        #expect(help.contains("--max-payload-nesting-depth ") && !help.contains("--max-payload-depth "))
        #expect(help.contains("(default: \(MetricKitConverter.Options.default.maxPayloadNestingDepth))"))
    }
}
