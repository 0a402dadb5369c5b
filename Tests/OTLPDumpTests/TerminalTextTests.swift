import Foundation
import Testing
import OTLPTestSupport

/// Text from the input never reaches a terminal raw: control and format characters (C0, DEL, C1, bidirectional
/// overrides) in any field otlp-dump
/// prints, in the tree, in `stats` and in error messages, are escaped.
@Suite("otlp-dump terminal safety")
struct TerminalTextTests {
    /// ESC ] 0 ; title BEL, a carriage return and a fake line, CSI in its one-character C1 form, and a
    /// right-to-left override (U+202E) that reorders what follows it on the screen.
    static let hostile = #"\u001b]0;pwned\u0007\r\nfake: valid\u009b2J\u007f\u202etxt.exe"#

    static let logs =
        #"{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc\#(hostile)"}}]},"scopeLogs":[{"scope":{"name":"s\#(hostile)","version":"1\#(hostile)"},"logRecords":[{"timeUnixNano":"1","severityText":"SEV\#(hostile)","eventName":"ev\#(hostile)","body":{"stringValue":"b"}}],"schemaUrl":"https://x\#(hostile)"}],"schemaUrl":"https://r\#(hostile)"}]}"#
    static let traces =
        #"{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"n\#(hostile)","startTimeUnixNano":"1","endTimeUnixNano":"2"}]}]}]}"#

    /// No control character other than the line ends of the output itself.
    static func isTerminalSafe(_ text: String) -> Bool {
        !text.unicodeScalars.contains {
            ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) || $0.properties.generalCategory == .format
        }
    }

    static func write(_ text: String) throws -> String {
        let path = OTLPTemporaryDirectory.unusedPath("otlp-dump-terminal", suffix: ".jsonl").path
        try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(
        "regression: the tree and stats escape severity text, event names, scope versions, schema URLs and every name",
        arguments: [
            ["print", "--color", "never"], ["print", "--brief", "--color", "never"], ["stats"],
        ])
    func printedFieldsAreEscaped(command: [String]) throws {
        for input in [Self.logs, Self.traces] {
            let path = try Self.write(input)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let result = try OTLPDumpRunner.run(command + [path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(Self.isTerminalSafe(result.stdout), "\(command): \(result.stdout.debugDescription)")
            #expect(!result.stdout.contains("\nfake: valid"))
        }
    }

    @Test("regression: an error message quoting a number from the input escapes it")
    func numberErrorIsEscaped() throws {
        let path = try Self.write(#"{"resourceSpans":[{"scopeSpans":[{"spans":[{"startTimeUnixNano":"\u001b[2J\nfake: valid"}]}]}]}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try OTLPDumpRunner.run(["validate", path])
        #expect(result.status == 1)
        #expect(Self.isTerminalSafe(result.stderr), "\(result.stderr.debugDescription)")
        #expect(result.stderr.contains(#"\u001b[2J\nfake: valid"#), "\(result.stderr)")
    }
}
