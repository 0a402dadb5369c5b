import Foundation
import OTLPHTTP
import OTLPTelemetry
import OTLPTestSupport
import OTLPTesting
import OTLPWire

/// Spans, log records and endpoints for the OTLP/HTTP tests.
enum OTLPHTTPTestData {
    static let resource = OTLPResource(attributes: [OTLPAttribute("service.name", "otlphttp-tests")])
    static let scope = OTLPInstrumentationScope(name: "otlphttp-tests", version: "1.0")

    static func spans(_ count: Int, from first: Int = 0) -> [OTLPScopedSpan] {
        (first..<first + count).map { index in
            var span = OTLPSpan(
                traceID: OTLPTraceID(high: 7, low: UInt64(index + 1)), spanID: OTLPSpanID(UInt64(index + 1)), name: "span \(index)",
                startTimeUnixNano: 1_000 + UInt64(index), endTimeUnixNano: 2_000 + UInt64(index))
            span.attributes = [OTLPAttribute("index", .int(Int64(index))), OTLPAttribute("text", .string("ü \(index)"))]
            return OTLPScopedSpan(scope: scope, span: span)
        }
    }

    static func logRecords(_ count: Int, from first: Int = 0) -> [OTLPScopedLogRecord] {
        (first..<first + count).map { index in
            OTLPScopedLogRecord(
                scope: scope,
                record: OTLPLogRecord(
                    timeUnixNano: 5_000 + UInt64(index), severity: .info, body: .string("record \(index)"),
                    attributes: [OTLPAttribute("index", .int(Int64(index)))]))
        }
    }

    static func endpoint(
        _ url: String, protocol wireProtocol: OTLPHTTPProtocol = .httpProtobuf, compression: OTLPCompression = .gzip,
        headers: [String: String] = [:], timeoutSeconds: Double = 10, signal: OTLPSignal = .traces
    ) -> OTLPExporterConfiguration.Resolved {
        OTLPExporterConfiguration(
            endpoint: url, protocol: wireProtocol, compression: compression, headers: headers, timeoutSeconds: timeoutSeconds
        )
        .resolved(for: signal)!
    }

    /// Retries quickly, so that tests of retrying take fractions of a second.
    static let quickRetries = OTLPHTTPRetryPolicy(initialBackoffSeconds: 0.05, maxBackoffSeconds: 0.2, jitterFraction: 0)

    /// A clock for a sender's timeout, backoff and deadlines that moves to the end of each wait at once
    /// (``OTLPManualClock/jumpToDeadlines()``): retries take no real time, and how long they would have taken
    /// is read from it.
    static func jumpingClock() -> OTLPManualClock {
        let clock = OTLPManualClock()
        clock.jumpToDeadlines()
        return clock
    }

    /// An exporter whose timeout and waits between attempts follow `clock`.
    static func exporter<Item: OTLPExportable>(
        _ type: Item.Type = Item.self, endpoint: OTLPExporterConfiguration.Resolved,
        counters: OTLPTelemetryCounters = OTLPTelemetryCounters(),
        retryPolicy: OTLPHTTPRetryPolicy = .default, diagnostics: @escaping @Sendable (String) -> Void = OTLPDiagnostics.standardError,
        clock: OTLPManualClock
    ) -> OTLPHTTPExporter<Item> {
        OTLPHTTPExporter<Item>(
            endpoint: endpoint, resource: resource, counters: counters, retryPolicy: retryPolicy, diagnostics: diagnostics, clock: clock)
    }

    /// The canonical items (see OTLPTestCollector) of `items` as one request under `resource`.
    static func canonical<Item: OTLPExportable>(_ items: [Item]) throws -> [String] {
        let file = OTLPTemporaryDirectory.unusedPath("otlphttp-expected", suffix: ".bin")
        defer { try? FileManager.default.removeItem(at: file) }
        let exporter = OTLPStreamExporter<Item>(path: file.path, resource: resource)
        exporter.export(items)
        exporter.shutdown()
        return try OTLPTestCollector.canonicalItems(ofFile: file.path, signal: Item.signal.rawValue)
    }
}

/// Collects diagnostics from any thread.
final class Messages: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []

    var all: [String] { lock.withLock { messages } }

    @Sendable func add(_ message: String) {
        lock.withLock { messages.append(message) }
    }
}
