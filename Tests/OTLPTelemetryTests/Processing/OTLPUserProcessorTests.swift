import Foundation
import Logging
import Testing
import Tracing
import OTLPWire
@testable import OTLPTelemetry
import OTLPTestSupport

/// The application's processors (`OTLPSpanProcessor`, `OTLPLogRecordProcessor`) run before the pipeline's.
@Suite("User processors")
struct OTLPUserProcessorTests {
    /// Sets `tenant` on every starting span and records what it was shown.
    final class Tagger: OTLPSpanProcessor, @unchecked Sendable {
        let lock = NSLock()
        var started: [(name: String, parent: OTLPSpanID?)] = []
        var ended: [OTLPSpan] = []
        var shutdowns = 0

        func onStart(_ span: OTLPTracingSpan, parentContext: InstrumentationContext) {
            span.attributes["tenant"] = "acme"
            lock.withLock { started.append((span.operationName, parentContext.otlpSpanContext?.spanID)) }
        }
        func onEnd(_ span: OTLPScopedSpan) { lock.withLock { ended.append(span.span) } }
        func shutdown() { lock.withLock { shutdowns += 1 } }
    }

    /// Reads what the processor before it set, and sets one more attribute from it.
    struct Follower: OTLPSpanProcessor {
        func onStart(_ span: OTLPTracingSpan, parentContext: InstrumentationContext) {
            if case .string(let tenant)? = span.attributes["tenant"]?.toSpanAttribute() {
                span.attributes["tenant.upper"] = tenant.uppercased()
            }
        }
    }

    /// Adds attributes to each record and rewrites its body.
    struct Redactor: OTLPLogRecordProcessor {
        func onEmit(_ record: inout OTLPScopedLogRecord, context: InstrumentationContext?) {
            record.record.attributes += [OTLPAttribute("a", "1"), OTLPAttribute("b", "2"), OTLPAttribute("c", "3")]
            if case .string(let text)? = record.record.body, text.contains("secret") { record.record.body = .string("[redacted]") }
        }
    }

    static func configuration(_ directory: URL, sampling: Double = 1) -> OTLPTelemetryConfiguration {
        OTLPTelemetryConfiguration(
            service: .init(name: "processors"), traces: .init(path: directory.appendingPathComponent("traces.u32be.bin").path),
            logs: .init(path: directory.appendingPathComponent("logs.u32be.bin").path), limits: OTLPLimits(attributeCountLimit: 2),
            sampling: .init(ratio: sampling, parentBased: true))
    }

    @Test(
        "span processors see every sampled span start (with its parent context) and end, in order; what they set is exported; tracers for other scopes run them too; shutdown reaches them once"
    )
    func spanProcessors() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let tagger = Tagger()
        let telemetry = OTLPTelemetry(
            configuration: Self.configuration(directory), spanProcessors: [tagger, Follower()], diagnostics: { _ in })
        telemetry.tracer.withSpan("outer") { outer in
            telemetry.tracer(scope: OTLPInstrumentationScope(name: "other")).withSpan("inner", context: outer.context) { _ in }
        }
        telemetry.shutdown()
        let exported = spans(try readAll(Array(try Data(contentsOf: directory.appendingPathComponent("traces.u32be.bin")))))
        #expect(exported.count == 2)
        for span in exported {
            #expect(span.attributes == [OTLPAttribute("tenant", "acme"), OTLPAttribute("tenant.upper", "ACME")], "\(span.name)")
        }
        let outer = try #require(exported.first { $0.name == "outer" })
        #expect(tagger.started.map(\.name) == ["outer", "inner"])
        #expect(tagger.started[0].parent == nil && tagger.started[1].parent == outer.spanID)
        #expect(tagger.ended.map(\.name) == ["inner", "outer"])
        #expect(tagger.ended.allSatisfy { $0.attributes.count == 2 })
        #expect(tagger.shutdowns == 1)
    }

    @Test("unsampled spans are not shown to span processors")
    func unsampledSpansSkipped() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let tagger = Tagger()
        let telemetry = OTLPTelemetry(
            configuration: Self.configuration(directory, sampling: 0), spanProcessors: [tagger], diagnostics: { _ in })
        telemetry.tracer.startSpan("not sampled").end()
        telemetry.shutdown()
        #expect(tagger.started.isEmpty && tagger.ended.isEmpty)
    }

    @Test("log record processors change each record before export, through the emitter and swift-log; the limits hold for what they add")
    func logRecordProcessors() throws {
        let directory = try OTLPTemporaryDirectory.make("otlptelemetry")
        defer { try? FileManager.default.removeItem(at: directory) }
        let telemetry = OTLPTelemetry(
            configuration: Self.configuration(directory), logRecordProcessors: [Redactor()], diagnostics: { _ in })
        telemetry.logEmitter.emit(OTLPLogRecord(timeUnixNano: 1, body: .string("the secret is 42")))
        Logger(label: "app") { telemetry.logHandler(label: $0) }.info("hello")
        telemetry.shutdown()
        let records = logRecords(try readAll(Array(try Data(contentsOf: directory.appendingPathComponent("logs.u32be.bin")))))
        #expect(records.map(\.body) == [.string("[redacted]"), .string("hello")])
        // Two attributes kept (the limit), the rest counted as dropped.
        #expect(records[0].attributes == [OTLPAttribute("a", "1"), OTLPAttribute("b", "2")] && records[0].droppedAttributesCount == 1)
        #expect(records[1].attributes.count == 2 && records[1].droppedAttributesCount > 0)
    }
}
