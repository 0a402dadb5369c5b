import Foundation
import OTLPHTTP
import OTLPTelemetry
import OTLPTestSupport
import OTLPWire
import Testing

/// `OTLPTelemetry.shutdown()` ends by `shutdownTimeoutSeconds` whatever the collector does: down (a refused
/// port), or accepting connections and never answering; what is not delivered stays in the spool, or is
/// counted. In this process, and in real processes (otlp-spool-writer) measured from start to exit.
@Suite("Shutdown within its deadline", .serialized)
struct OTLPHTTPShutdownTests {
    typealias Data_ = OTLPHTTPTestData

    /// A retry policy whose first wait (60 s) no test could sit through: a test that ends quickly did not retry.
    static let slowRetries = OTLPHTTPRetryPolicy(initialBackoffSeconds: 60, maxBackoffSeconds: 60, jitterFraction: 0)

    @Test("collector down: a refused connection is not tried again during shutdown; shutdown ends at once, every item counted")
    func refusedNotRetried() throws {
        let port = try OTLPFreePort.unused()
        // Every timeout long: only giving up at once on the refused connection ends this quickly.
        let configuration = OTLPTelemetryConfiguration(
            batch: .init(scheduleDelaySeconds: 3600, exportTimeoutSeconds: 600),
            otlp: OTLPExporterConfiguration(endpoint: "http://127.0.0.1:\(port)", timeoutSeconds: 600), shutdownTimeoutSeconds: 600)
        let messages = Messages()
        let telemetry = OTLPTelemetry(
            configuration: configuration, resource: Data_.resource, exporterFactory: OTLPHTTPExporterFactory(retryPolicy: Self.slowRetries),
            diagnostics: messages.add)
        for scoped in Data_.spans(100) { telemetry.tracer.export(scoped.span) }
        for scoped in Data_.logRecords(100) { telemetry.logEmitter.emit(scoped.record, context: nil) }
        let started = ContinuousClock.now
        telemetry.shutdown()
        // A watchdog far below the first retry's 60 s wait, not a measurement.
        #expect(ContinuousClock.now - started < .seconds(30))
        let delivered = telemetry.deliveryCounters.snapshot
        #expect(delivered.spansDropped == [.exportFailed: 100] && delivered.logRecordsDropped == [.exportFailed: 100], "\(delivered)")
        #expect(delivered.spanExportRetries == 0 && delivered.logRecordExportRetries == 0, "\(delivered)")
        let refused = messages.all.filter { $0.contains("connection refused (nothing listens there); not tried again during shutdown") }
        #expect(refused.count == 2, "\(messages.all)")
        // The cause reads cleanly (regression: "connection reset (error set): Connection refused").
        #expect(!messages.all.contains { $0.contains("error set") || $0.contains("connection reset") }, "\(messages.all)")
    }

    @Test(
        "a collector that accepts and never answers: shutdown ends by shutdownTimeoutSeconds (not the export or request timeouts); what was not sent is counted shutdown_timeout, and the report says what to raise"
    )
    func hangingCollector() throws {
        let collector = try OTLPTestCollector(answers: Array(repeating: .hang, count: 20))
        defer { collector.removeRecords() }
        // 10 spans make a full batch, sent at once to the collector that never answers; 90 more wait behind it.
        let configuration = OTLPTelemetryConfiguration(
            batch: .init(maxQueueSize: 1000, maxExportBatchSize: 10, scheduleDelaySeconds: 3600, exportTimeoutSeconds: 600),
            otlp: OTLPExporterConfiguration(endpoint: collector.endpoint, timeoutSeconds: 600), shutdownTimeoutSeconds: 0.5)
        let messages = Messages()
        let telemetry = OTLPTelemetry(
            configuration: configuration, resource: Data_.resource, exporterFactory: OTLPHTTPExporterFactory(retryPolicy: Self.slowRetries),
            diagnostics: messages.add)
        for scoped in Data_.spans(100) { telemetry.tracer.export(scoped.span) }
        let started = ContinuousClock.now
        telemetry.shutdown()
        let elapsed = ContinuousClock.now - started
        collector.stop()
        // A watchdog (the old shutdown waited for the 600 s timeouts), not a measurement.
        #expect(elapsed < .seconds(30), "\(elapsed)")
        let delivered = telemetry.deliveryCounters.snapshot
        #expect(delivered.spansReceived == 100 && delivered.totalSpansDropped == 100, "\(delivered)")
        #expect(delivered.spansDropped[.shutdownTimeout, default: 0] >= 80, "\(delivered)")
        #expect(
            messages.all.contains {
                $0.contains("dropped data meant for the collector") && $0.contains("raise shutdownTimeoutSeconds from 0.5")
            },
            "\(messages.all)")
    }

    @Test("with a spool, a collector that never answers: shutdown ends by the deadline, nothing is dropped, everything waits in the spool")
    func hangingCollectorWithSpool() throws {
        let root = OTLPTemporaryDirectory.unusedPath("otlphttp-shutdown").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let collector = try OTLPTestCollector(answers: Array(repeating: .hang, count: 20))
        defer { collector.removeRecords() }
        let configuration = OTLPTelemetryConfiguration(
            batch: .init(maxQueueSize: 1000, maxExportBatchSize: 10, scheduleDelaySeconds: 3600, exportTimeoutSeconds: 600),
            otlp: OTLPExporterConfiguration(endpoint: collector.endpoint, timeoutSeconds: 600, spool: .init(directory: root)),
            shutdownTimeoutSeconds: 0.5)
        let telemetry = OTLPTelemetry(
            configuration: configuration, resource: Data_.resource, exporterFactory: OTLPHTTPExporterFactory(retryPolicy: Self.slowRetries),
            diagnostics: Messages().add)
        for scoped in Data_.spans(100) { telemetry.tracer.export(scoped.span) }
        let started = ContinuousClock.now
        telemetry.shutdown()
        let elapsed = ContinuousClock.now - started
        collector.stop()
        #expect(elapsed < .seconds(30), "\(elapsed)")
        let delivered = telemetry.deliveryCounters.snapshot
        #expect(delivered.spansReceived == 100 && delivered.totalSpansDropped == 0 && delivered.spansExported == 0, "\(delivered)")
        // The next start finds them all.
        let port = try OTLPFreePort.unused()
        let next = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint("http://127.0.0.1:\(port)", timeoutSeconds: 0.1),
            spool: OTLPSpoolConfiguration(directory: "\(root)/traces"), resource: Data_.resource, diagnostics: { _ in })
        #expect(next.pendingItems == 100)
        next.prepareForShutdown(withinSeconds: 0)
        next.shutdown()
    }

    // MARK: Real processes: from start to exit

    /// Runs otlp-spool-writer with `json` as its configuration, making `count` spans and as many log records;
    /// returns the result and how long the process took from start to exit.
    static func runWriter(_ json: String, count: Int) throws -> (result: OTLPProcess.Result, elapsed: Duration) {
        let path = OTLPTemporaryDirectory.unusedPath("otlphttp-shutdown", suffix: ".json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        let started = ContinuousClock.now
        let result = try OTLPProcess.run(OTLPProcess.executable("otlp-spool-writer"), [path, "\(count)"])
        return (result, ContinuousClock.now - started)
    }

    @Test("a tool whose collector is down exits at once: no retries, every item counted export_failed")
    func toolWithCollectorDown() throws {
        let port = try OTLPFreePort.unused()
        let (result, elapsed) = try Self.runWriter(
            """
            {"batch": {"scheduleDelaySeconds": 3600}, "shutdownTimeoutSeconds": 600,
             "otlp": {"endpoint": "http://127.0.0.1:\(port)", "timeoutSeconds": 600}}
            """, count: 300)
        #expect(result.status == 0, "\(result.errors)")
        #expect(elapsed < .seconds(30), "\(elapsed)")
        #expect(
            result.output.contains("dropped 300 export_failed; log records: 300 received, 0 exported, dropped 300 export_failed"),
            "\(result.output)")
        #expect(!result.output.contains("export retries"), "\(result.output)")
    }

    @Test("a tool whose collector never answers exits by shutdownTimeoutSeconds; with a spool, what was not delivered waits there")
    func toolWithHangingCollector() throws {
        let collector = try OTLPTestCollector(answers: Array(repeating: .hang, count: 40))
        defer { collector.removeRecords() }
        let root = OTLPTemporaryDirectory.unusedPath("otlphttp-shutdown").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        // 4 s: the spool's exporter stops a tenth of the time left before the deadline (0.4 s), room enough
        // on a loaded machine for it to close the spool and say what it left there (with 1 s, 0.1 s was not).
        for spool in [false, true] {
            let (result, elapsed) = try Self.runWriter(
                """
                {"batch": {"maxExportBatchSize": 50, "scheduleDelaySeconds": 3600, "exportTimeoutSeconds": 600}, "shutdownTimeoutSeconds": 4,
                 "otlp": {"endpoint": "\(collector.endpoint)", "timeoutSeconds": 600\(spool ? #", "spool": {"directory": "\#(root)"}"# : "")}}
                """, count: 300)
            #expect(result.status == 0, "\(result.errors)")
            #expect(elapsed < .seconds(30), "\(elapsed)")
            if spool {
                #expect(result.output.contains("spans: 300 received, 0 exported, dropped 0;"), "\(result.output)")
                #expect(result.errors.contains("left in"), "\(result.errors)")
            } else {
                #expect(result.output.contains("shutdown_timeout"), "\(result.output)")
                #expect(result.errors.contains("raise shutdownTimeoutSeconds from 4"), "\(result.errors)")
            }
        }
        collector.stop()
    }
}
