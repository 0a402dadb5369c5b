import Foundation
import OTLPHTTP
import OTLPTelemetry
import OTLPTestSupport
import OTLPWire
import Testing

/// The whole pipeline delivering to a real collector (rotel on loopback, forwarding to the scripted server),
/// and shutting down while no collector answers.
@Suite("OTLPTelemetry delivering over OTLP/HTTP", .serialized)
struct OTLPHTTPPipelineTests {
    typealias Data_ = OTLPHTTPTestData

    static let formats: [(OTLPHTTPProtocol, OTLPCompression)] = [
        (.httpProtobuf, .gzip), (.httpProtobuf, .none), (.httpJSON, .gzip), (.httpJSON, .none),
    ]

    @Test("every span and log record reaches rotel with equal content, beside the file output", arguments: formats)
    func rotel(wireProtocol: OTLPHTTPProtocol, compression: OTLPCompression) throws {
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let rotel = try OTLPRotel(forwardingTo: collector)
        let directory = try OTLPTemporaryDirectory.make("otlphttp-pipeline")
        defer { try? FileManager.default.removeItem(at: directory) }
        let tracesPath = directory.appendingPathComponent("traces.u32be.bin").path
        let logsPath = directory.appendingPathComponent("logs.u32be.bin").path
        let configuration = OTLPTelemetryConfiguration(
            traces: .init(path: tracesPath), logs: .init(path: logsPath),
            batch: .init(maxExportBatchSize: 200, scheduleDelaySeconds: 0.05),
            otlp: OTLPExporterConfiguration(endpoint: rotel.endpoint, protocol: wireProtocol, compression: compression))
        let messages = Messages()
        let telemetry = OTLPTelemetry(
            configuration: configuration, resource: Data_.resource, exporterFactory: OTLPHTTPExporterFactory(), diagnostics: messages.add)
        for scoped in Data_.spans(1_000) { telemetry.tracer.export(scoped.span) }
        for scoped in Data_.logRecords(1_000) { telemetry.logEmitter.emit(scoped.record, context: nil) }
        telemetry.shutdown()
        rotel.stop()
        collector.stop()

        let delivered = telemetry.deliveryCounters.snapshot
        #expect(delivered.spansReceived == 1_000 && delivered.spansExported == 1_000 && delivered.totalSpansDropped == 0)
        #expect(delivered.logRecordsReceived == 1_000 && delivered.logRecordsExported == 1_000 && delivered.totalLogRecordsDropped == 0)
        #expect(telemetry.counters.snapshot.spansExported == 1_000 && telemetry.counters.snapshot.logRecordsExported == 1_000)
        #expect(messages.all.isEmpty, "\(messages.all)")
        let expected =
            try OTLPTestCollector.canonicalItems(ofFile: tracesPath, signal: "traces")
            + OTLPTestCollector.canonicalItems(ofFile: logsPath, signal: "logs")
        #expect(expected.count == 2_000)
        let arrived = collector.items
        #expect(arrived.count == 2_000)
        #expect(arrived.sorted() == expected.sorted())
    }

    @Test("shutdown while the collector is down returns within the export timeout; everything is counted")
    func shutdownWhileDown() throws {
        let port = try OTLPFreePort.unused()
        let configuration = OTLPTelemetryConfiguration(
            batch: .init(scheduleDelaySeconds: 0.05, exportTimeoutSeconds: 1),
            otlp: OTLPExporterConfiguration(endpoint: "http://127.0.0.1:\(port)", timeoutSeconds: 30))
        let messages = Messages()
        let telemetry = OTLPTelemetry(
            configuration: configuration, resource: Data_.resource, exporterFactory: OTLPHTTPExporterFactory(), diagnostics: messages.add)
        for scoped in Data_.spans(100) { telemetry.tracer.export(scoped.span) }
        for scoped in Data_.logRecords(100) { telemetry.logEmitter.emit(scoped.record, context: nil) }
        let started = Date()
        telemetry.shutdown()
        // Each signal's processor gives its exporter the 1 s export timeout (not the 30 s request timeout).
        #expect(Date().timeIntervalSince(started) < 8)
        let delivered = telemetry.deliveryCounters.snapshot
        #expect(delivered.spansReceived == 100 && delivered.spansDropped == [.exportFailed: 100], "\(delivered)")
        #expect(delivered.logRecordsReceived == 100 && delivered.logRecordsDropped == [.exportFailed: 100], "\(delivered)")
        #expect(messages.all.contains { $0.contains("dropped data meant for the collector") })
    }

    @Test("shutdown with a collector that never answers ends within the export timeout, both signals at once (regression: 20 s)")
    func shutdownWhileHanging() throws {
        let collector = try OTLPTestCollector(answers: Array(repeating: .hang, count: 10))
        defer { collector.removeRecords() }
        let configuration = OTLPTelemetryConfiguration(
            batch: .init(scheduleDelaySeconds: 0.05, exportTimeoutSeconds: 1),
            otlp: OTLPExporterConfiguration(endpoint: collector.endpoint, timeoutSeconds: 30))
        let telemetry = OTLPTelemetry(
            configuration: configuration, resource: Data_.resource, exporterFactory: OTLPHTTPExporterFactory(), diagnostics: Messages().add)
        for scoped in Data_.spans(10) { telemetry.tracer.export(scoped.span) }
        for scoped in Data_.logRecords(10) { telemetry.logEmitter.emit(scoped.record, context: nil) }
        let started = Date()
        telemetry.shutdown()
        #expect(Date().timeIntervalSince(started) < 8)
        collector.stop()
        let delivered = telemetry.deliveryCounters.snapshot
        // Each item is lost once: refused by the hanging export (export_failed), or still queued when the
        // shutdown deadline came (shutdown_timeout); which one depends on how far the exports got.
        let reasons: Set<OTLPDropReason> = [.exportFailed, .shutdownTimeout]
        #expect(delivered.totalSpansDropped == 10 && Set(delivered.spansDropped.keys).isSubset(of: reasons), "\(delivered)")
        #expect(delivered.totalLogRecordsDropped == 10 && Set(delivered.logRecordsDropped.keys).isSubset(of: reasons), "\(delivered)")
    }

    @Test("a header no request can carry is reported at start and left out; the rest is delivered")
    func unsendableHeader() throws {
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let configuration = OTLPTelemetryConfiguration(
            batch: .init(scheduleDelaySeconds: 0.05),
            otlp: OTLPExporterConfiguration(endpoint: collector.endpoint, headers: ["x-good": "1", "x-bad": "a\r\nInjected: yes"]))
        let messages = Messages()
        let telemetry = OTLPTelemetry(
            configuration: configuration, resource: Data_.resource, exporterFactory: OTLPHTTPExporterFactory(), diagnostics: messages.add)
        for scoped in Data_.spans(5) { telemetry.tracer.export(scoped.span) }
        telemetry.shutdown()
        collector.stop()
        #expect(messages.all.contains { $0.contains("otlp.headers.x-bad") && $0.contains("the header is not sent") }, "\(messages.all)")
        #expect(telemetry.deliveryCounters.snapshot.spansExported == 5)
        let request = try #require(collector.requests.first)
        #expect(request.headers["x-good"] == "1" && request.headers["x-bad"] == nil && request.headers["injected"] == nil)
    }

    @Test("an otlp section without an exporter factory is reported, and the file output still works")
    func withoutFactory() throws {
        let messages = Messages()
        let telemetry = OTLPTelemetry(
            configuration: OTLPTelemetryConfiguration(otlp: .default), resource: Data_.resource, diagnostics: messages.add)
        telemetry.shutdown()
        #expect(messages.all.contains { $0.contains("otlp section is ignored") })
    }
}
