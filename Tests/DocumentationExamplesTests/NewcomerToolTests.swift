import Foundation
import OTLPTestSupport
import OTLPWire
import Testing

/// A newcomer's command-line tool: the README's OTLPTelemetry example, compiled without package access (as a
/// user's package is) and run as a process with the settings a user would try, checking what the first run
/// shows: the files exist, nothing is dropped at the defaults, and a drop says which setting to raise.
@Suite("A newcomer's tool, from the README")
struct NewcomerToolTests {
    typealias Scratch = ExampleRunTests.Scratch

    @Test(
        "3,000 orders on 4 workers: telemetry/ is made, every span and log record is written, each log line also on the console with its trace and span IDs, nothing else on stderr"
    )
    func firstRun() throws {
        let scratch = try Scratch()
        #expect(!scratch.exists("telemetry"))
        let result = try OTLPProcess.run(ExampleRunTests.executable, ["readme-otlptelemetry", "3000"], in: scratch.url)
        #expect(result.status == 0, "\(result.errors)")
        let spans = try scratch.spans("telemetry/traces.u32be.bin")
        let records = try scratch.logRecords("telemetry/logs.u32be.bin.gz")
        #expect(spans.count == 3000 && records.count == 3000)
        let lines = result.errors.split(separator: "\n")
        #expect(lines.count == 3000, "\(lines.filter { !$0.contains("order placed") }.prefix(5))")
        // The console line of a record names the record's own span.
        if let record = records.first, let spanID = record.spanID, let traceID = record.traceID {
            #expect(lines.contains { $0.contains("span_id=\(spanID.hex)") && $0.contains("trace_id=\(traceID.hex)") })
        }
        #expect(lines.allSatisfy { $0.contains("order placed") })
    }

    @Test("a queue too small for the run: the drops are counted, and the report names the setting and the value to hold the peak")
    func dropAdvice() throws {
        let scratch = try Scratch()
        let result = try OTLPProcess.run(
            ExampleRunTests.executable, ["readme-otlptelemetry", "3000"], in: scratch.url,
            environment: ["OTEL_BSP_MAX_QUEUE_SIZE": "4", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "4"])
        #expect(result.status == 0)
        let written = try scratch.spans("telemetry/traces.u32be.bin").count
        if written < 3000 {
            #expect(result.errors.contains("dropped data"), "\(result.errors)")
            #expect(result.errors.contains("queue_full"), "\(result.errors)")
            #expect(result.errors.contains("raise batch.maxQueueSize (OTEL_BSP_MAX_QUEUE_SIZE) from 4 to at least"), "\(result.errors)")
        } else {
            // The worker kept up with a queue of 4 this time: then nothing may be reported as dropped.
            #expect(!result.errors.contains("dropped"), "\(result.errors)")
        }
    }

    @Test("an endpoint that already ends in /v1/traces: one warning naming the per-signal variable, delivered once")
    func endpointWithSignalPath() throws {
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let scratch = try Scratch()
        let result = try OTLPProcess.run(
            ExampleRunTests.executable, ["readme-otlphttp", "http://127.0.0.1:1"], in: scratch.url,
            environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "\(collector.endpoint)/v1/traces"])
        #expect(result.status == 0, "\(result.errors)")
        #expect((result.output + result.errors).contains("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), "\(result.output)\(result.errors)")
        #expect(collector.requests.map(\.path) == ["/v1/traces"])
    }
}
