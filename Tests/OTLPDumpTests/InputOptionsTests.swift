import ArgumentParser
import Foundation
import OTLPWire
import Testing
@testable import otlp_dump

/// otlp-dump's limit options read their defaults from `OTLPReaderOptions.default` and are named as the
/// `OTLPDecodingOptions` fields they set; their former names (removed before the first release) are refused.
@Suite("otlp-dump input options")
struct InputOptionsTests {
    static let message = OTLPDumpRunner.vectors.appendingPathComponent("traces/app-telemetry.pb").path
    static let framed = OTLPDumpRunner.vectors.appendingPathComponent("framed/traces-mixed.u32be.bin").path

    /// A limit option: its name, its removed former name, the field it sets, a value that makes a vector fail,
    /// the vector, the error kind, the option's range.
    struct Limit: CustomStringConvertible, Sendable {
        var name: String
        var former: String
        var field: @Sendable (OTLPDecodingOptions) -> Int
        var failing: [String]
        var kind: String
        var range: String
        var description: String { name }
    }

    static let limits = [
        Limit(
            name: "--max-record-bytes", former: "--max-frame-bytes", field: \.maxRecordBytes, failing: ["100", framed],
            kind: "record_too_large", range: "1...2147483647"),
        Limit(
            name: "--max-nesting-depth", former: "--max-depth", field: \.maxNestingDepth, failing: ["3", "--framing", "none", message],
            kind: "nesting_too_deep", range: "1...128"),
        Limit(
            name: "--max-attributes-per-item", former: "--max-attributes", field: \.maxAttributesPerItem,
            failing: ["2", "--framing", "none", message], kind: "too_many_attributes", range: "0...1000000"),
    ]

    @Test("without options, the reader options are the library's defaults")
    func defaults() throws {
        let options = try InputOptions.parse([])
        #expect(options.readerOptions == OTLPReaderOptions.default)
    }

    @Test("the option sets the limit", arguments: limits)
    func setsLimit(option: Limit) throws {
        #expect(option.field(try InputOptions.parse([option.name, "7"]).readerOptions.decoding) == 7)
        #expect(option.field(try InputOptions.parse([option.name, "9"]).readerOptions.decoding) == 9)
    }

    @Test("the option limits, and an error names it; the help shows it with its default", arguments: limits)
    func limitsAndHelp(option: Limit) throws {
        let limited = try OTLPDumpRunner.run(["validate", option.name] + option.failing)
        #expect(limited.status == 1 && limited.stderr.contains(option.kind), "\(limited.stderr)")
        let outside = try OTLPDumpRunner.run(["validate", option.name, String(Int.max), Self.framed])
        #expect(outside.status == 64 && outside.stderr.contains("\(option.name) must be in \(option.range)"), "\(outside.stderr)")
        let help = try OTLPDumpRunner.run(["validate", "--help"])
        #expect(help.stdout.contains(option.name + " ") && !help.stdout.contains(option.former + " "), "\(help.stdout)")
        #expect(help.stdout.contains("(default: \(option.field(.default)))"))
    }

    @Test("the former name is refused as a usage error", arguments: limits)
    func formerNameRefused(option: Limit) throws {
        let result = try OTLPDumpRunner.run(["validate", option.former, "100", Self.framed])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(throws: (any Error).self) { try InputOptions.parse([option.former, "9"]) }
    }

    @Test(
        "a number in a name is a rotation only where the file output puts one, beside its current file: dates stay in name order, app.42's rotations are app.42.N"
    )
    func numbersThatAreNotRotations() throws {
        #expect(
            InputOptions.oldestFirst(["traces.20261127.u32be.bin", "traces.20261125.u32be.bin", "traces.20261126.u32be.bin"])
                == ["traces.20261125.u32be.bin", "traces.20261126.u32be.bin", "traces.20261127.u32be.bin"])
        #expect(
            InputOptions.oldestFirst(["app.42.u32be.bin", "app.42.1.u32be.bin", "app.42.10.u32be.bin", "app.42.2.u32be.bin"])
                == ["app.42.10.u32be.bin", "app.42.2.u32be.bin", "app.42.1.u32be.bin", "app.42.u32be.bin"])
        #expect(
            InputOptions.oldestFirst(["logs.u32be.bin.gz", "logs.2.u32be.bin.gz", "logs.1.u32be.bin.gz", "logs.01.u32be.bin.gz"])
                == ["logs.01.u32be.bin.gz", "logs.2.u32be.bin.gz", "logs.1.u32be.bin.gz", "logs.u32be.bin.gz"])
    }
}
