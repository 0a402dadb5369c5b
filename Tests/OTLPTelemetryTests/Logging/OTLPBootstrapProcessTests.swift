import Foundation
import OTLPTestSupport
import OTLPWire
import Testing

@testable import OTLPTelemetry

/// Bootstrapping beside swift-log, in processes of their own (swift-log and swift-distributed-tracing can be
/// bootstrapped once per process): the console kept, the console off, a program that bootstraps swift-log
/// itself, and the trap that the tracing-only bootstrap avoids.
@Suite("Bootstrap beside swift-log (processes)")
struct OTLPBootstrapProcessTests {
    /// Runs otlp-log-writer in `mode`; returns its result, its one span and its log records.
    static func run(_ mode: String) throws -> (result: OTLPProcess.Result, span: OTLPSpan?, records: [OTLPLogRecord]) {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try OTLPProcess.run(OTLPProcess.executable("otlp-log-writer"), [mode, directory.path])
        func payloads(_ name: String) throws -> [OTLPPayload] {
            let path = directory.appendingPathComponent(name).path
            guard FileManager.default.fileExists(atPath: path) else { return [] }
            return try readAll(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        }
        return (result, spans(try payloads("traces.u32be.bin")).first, logRecords(try payloads("logs.u32be.bin")))
    }

    /// The console line of `message`, if any.
    static func line(_ text: String, _ message: String) -> String? {
        text.split(separator: "\n").first { $0.hasSuffix(message) }.map(String.init)
    }

    @Test("bootstrap(): each log line on standard error AND as a log record; inside a span both carry its trace and span IDs")
    func consoleKept() throws {
        let (result, span, records) = try Self.run("bootstrap")
        #expect(result.status == 0, "\(result.errors)")
        let span_ = try #require(span)
        let (traceID, spanID) = (try #require(span_.traceID), try #require(span_.spanID))
        let inside = try #require(Self.line(result.errors, "inside the span"), "\(result.errors)")
        #expect(inside.contains("trace_id=\(traceID.hex)") && inside.contains("span_id=\(spanID.hex)"), "\(inside)")
        let outside = try #require(Self.line(result.errors, "outside any span"), "\(result.errors)")
        #expect(!outside.contains("trace_id="), "\(outside)")
        #expect(records.map(\.body) == [.string("inside the span"), .string("outside any span")])
        #expect(records.first?.traceID == span_.traceID && records.first?.spanID == span_.spanID)
        #expect(records.last?.traceID == nil)
    }

    @Test("consoleLogging off: nothing on standard error, the log records as before")
    func consoleOff() throws {
        let (result, span, records) = try Self.run("bootstrap-quiet")
        #expect(result.status == 0, "\(result.errors)")
        #expect(
            Self.line(result.errors, "inside the span") == nil && Self.line(result.errors, "outside any span") == nil, "\(result.errors)")
        #expect(records.map(\.body) == [.string("inside the span"), .string("outside any span")])
        #expect(span != nil && records.first?.traceID == span?.traceID)
    }

    @Test(
        "swift-log bootstrapped by the program, then bootstrapTracing() and logHandler(label:): no trap, lines and records with the trace")
    func selfBootstrap() throws {
        let (result, span, records) = try Self.run("self-bootstrap")
        #expect(result.status == 0, "\(result.errors)")
        let span_ = try #require(span)
        let (traceID, spanID) = (try #require(span_.traceID), try #require(span_.spanID))
        let inside = try #require(Self.line(result.output, "inside the span"), "\(result.output)")
        #expect(inside.contains("trace_id=\(traceID.hex)") && inside.contains("span_id=\(spanID.hex)"), "\(inside)")
        #expect(records.map(\.body) == [.string("inside the span"), .string("outside any span")])
        #expect(records.first?.traceID == span_.traceID)
    }

    @Test("why the tracing-only bootstrap exists: bootstrap() after the program bootstrapped swift-log traps in swift-log")
    func bootstrapTwiceTraps() throws {
        let (result, _, _) = try Self.run("bootstrap-twice")
        #expect(result.status != 0, "\(result.errors)")
    }
}
