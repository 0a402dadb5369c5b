import Foundation
import OTLPInstrumentation
import OTLPTelemetry
import OTLPTesting
import OTLPWire
import Testing

@testable import OTLPMetricKit
import OTLPTestSupport

/// What MetricKitSubscriber (Apple platforms only) does with a payload's JSON: converted, its spans handed
/// to `OTLPTracer.export(_:)` and its records to the log emitter without the caller's context, here through
/// a real pipeline with a session manager among the application's processors.
@Suite("MetricKit payloads in a pipeline with sessions")
struct MetricKitSessionTests {
    /// The subscriber's two calls, as it makes them.
    struct Subscriber {
        let converter = MetricKitConverter(idGenerator: OTLPSequentialIDGenerator())
        let tracer: OTLPTracer
        let logEmitter: OTLPLogEmitter

        func exportMetricPayload(json: [UInt8]) throws {
            for span in try converter.convertMetricPayload(json: json) { tracer.export(span) }
        }

        func exportDiagnosticPayload(json: [UInt8]) throws {
            let result = try converter.convertDiagnosticPayload(json: json)
            tracer.export(result.span)
            for record in result.logRecords { logEmitter.emit(record, context: nil) }
        }
    }

    /// Runs `body` against a pipeline writing to files, with a session manager installed, and returns the
    /// spans and log records written, with the session IDs the manager had.
    static func export(
        attributeCountLimit: Int? = nil, _ body: (Subscriber, OTLPSessionManager, OTLPManualClock) throws -> Void
    ) throws -> (spans: [OTLPSpan], records: [OTLPLogRecord]) {
        let directory = try OTLPTemporaryDirectory.make("metrickit-sessions")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = OTLPManualClock()
        let sessions = OTLPSessionManager(
            configuration: OTLPSessionConfiguration(inactivityTimeoutSeconds: 60, maxLengthSeconds: 3600), clock: clock,
            idGenerator: OTLPSequentialIDGenerator())
        var configuration = OTLPTelemetryConfiguration(
            traces: .init(path: directory.appendingPathComponent("t.bin").path),
            logs: .init(path: directory.appendingPathComponent("l.bin").path))
        if let attributeCountLimit { configuration.limits.attributeCountLimit = attributeCountLimit }
        let telemetry = OTLPTelemetry(
            configuration: configuration, clock: clock, spanProcessors: [sessions], logRecordProcessors: [sessions])
        sessions.emitEvents(through: telemetry.logEmitter(scope: OTLPSessionManager.scope))
        let scope = MetricKitConverter.Options.default.scope
        let exporter = Subscriber(tracer: telemetry.tracer(scope: scope), logEmitter: telemetry.logEmitter(scope: scope))
        try body(exporter, sessions, clock)
        telemetry.shutdown()
        var spans: [OTLPSpan] = []
        var records: [OTLPLogRecord] = []
        for (file, signal) in [("t.bin", OTLPSignal.traces), ("l.bin", .logs)] {
            let reader = try OTLPRecordReader(path: directory.appendingPathComponent(file).path, options: OTLPReaderOptions(signal: signal))
            while let record = try reader.next() {
                switch record.payload {
                case .traces(let data): spans += data.resourceGroups.flatMap { $0.scopeGroups.flatMap(\.items) }
                case .logs(let data): records += data.resourceGroups.flatMap { $0.scopeGroups.flatMap(\.items) }
                case .metrics: Issue.record("the SDK wrote a metrics record")
                }
            }
        }
        return (spans, records)
    }

    static func session(_ attributes: [OTLPAttribute]) -> String? {
        guard case .string(let id)? = attributes.first(where: { $0.key == "session.id" })?.value else { return nil }
        return id
    }

    @Test("payloads carry the session in which they arrived, not one of the period they describe; the payload's spans are session activity")
    func sessionAtArrival() throws {
        var sessionIDs: [String] = []
        let (spans, records) = try Self.export { exporter, sessions, clock in
            try exporter.exportMetricPayload(json: MetricKitConverterTests.sample("metric-full.json"))
            sessionIDs.append(sessions.currentSession.id)
            clock.advance(seconds: 120)  // past the inactivity timeout: the next payload arrives in a new session
            try exporter.exportDiagnosticPayload(json: MetricKitConverterTests.sample("diagnostic-all-kinds.json"))
            sessionIDs.append(sessions.currentSession.id)
        }
        #expect(sessionIDs[0] != sessionIDs[1])
        let metricSpans = spans.filter { $0.name != "MXDiagnosticPayload" }
        let diagnosticSpan = try #require(spans.first { $0.name == "MXDiagnosticPayload" })
        #expect(!metricSpans.isEmpty)
        // First among the attributes, so that an attribute count limit keeps it.
        #expect(metricSpans.allSatisfy { $0.attributes.first?.key == "session.id" && Self.session($0.attributes) == sessionIDs[0] })
        #expect(Self.session(diagnosticSpan.attributes) == sessionIDs[1])
        #expect(diagnosticSpan.attributes.contains { $0.key == "session.previous_id" && $0.value == .string(sessionIDs[0]) })
        let diagnostics = records.filter { $0.eventName.hasPrefix("metrickit.diagnostic.") || $0.eventName == "app.crash" }
        #expect(diagnostics.count == 5)
        #expect(diagnostics.allSatisfy { Self.session($0.attributes) == sessionIDs[1] })
        // The payload's own times are kept: the session says when it arrived, not what it describes.
        #expect(diagnosticSpan.startTimeUnixNano == (try #require(MetricKitTimestamp.unixNano("2025-06-03 09:14:00"))))
        #expect(records.map(\.eventName).filter { $0.hasPrefix("session.") } == ["session.start", "session.end", "session.start"])
    }

    @Test("at the attribute count limit a MetricKit span keeps its session.id")
    func limitKeepsSession() throws {
        let (spans, _) = try Self.export(attributeCountLimit: 2) { exporter, _, _ in
            try exporter.exportMetricPayload(json: MetricKitConverterTests.sample("metric-full.json"))
        }
        #expect(!spans.isEmpty)
        #expect(spans.allSatisfy { $0.attributes.first?.key == "session.id" })
    }
}
