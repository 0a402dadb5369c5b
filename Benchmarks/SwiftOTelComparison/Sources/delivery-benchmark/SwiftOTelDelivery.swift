import Logging
import OTel
import PeerSupport

/// The swift-otel side: its tracing and logging backends (`OTel.makeTracingBackend`,
/// `OTel.makeLoggingBackend`) with the OTLP/HTTP exporter, protobuf, the same batch settings; one backend
/// per signal, run as a service and shut down gracefully at the end of its run (which exports what its
/// batch processor holds). swift-otel 1.6's HTTP exporter sends bodies uncompressed whatever its
/// `compression` setting says, so gzip is asked for and not applied.
struct SwiftOTelDelivery {
    var options: DeliveryOptions

    func run(_ workload: Workload) async throws -> [DeliveryResult] {
        [try await deliver(traces: true, workload), try await deliver(traces: false, workload)]
    }

    private func deliver(traces: Bool, _ workload: Workload) async throws -> DeliveryResult {
        let lost = SwiftOTelDiagnostics.LostItems()
        var configuration = OTel.Configuration.benchmark(serviceName: "delivery-benchmark", lost: lost)
        configuration.traces.enabled = traces
        configuration.logs.enabled = !traces
        configuration.logs.level = .trace
        var exporter = OTel.Configuration.OTLPExporterConfiguration.default
        exporter.protocol = .httpProtobuf
        exporter.compression = options.gzip ? .gzip : .none
        exporter.endpoint = "\(options.endpoint)/v1/\(traces ? "traces" : "logs")"  // an explicit endpoint is used as is
        configuration.traces.otlpExporter = exporter
        configuration.logs.otlpExporter = exporter
        let delay = Duration.milliseconds(Int64(options.scheduleDelaySeconds * 1000))
        configuration.traces.batchSpanProcessor.maxQueueSize = options.queueSize
        configuration.traces.batchSpanProcessor.maxExportBatchSize = options.maxExportBatchSize
        configuration.traces.batchSpanProcessor.scheduleDelay = delay
        configuration.logs.batchLogRecordProcessor.maxQueueSize = options.queueSize
        configuration.logs.batchLogRecordProcessor.maxExportBatchSize = options.maxExportBatchSize
        configuration.logs.batchLogRecordProcessor.scheduleDelay = delay

        let items = traces ? workload.spans.count : workload.logRecords.count
        let cost: (wallSeconds: Double, cpuSeconds: Double)
        if traces {
            let backend = try OTel.makeTracingBackend(configuration: configuration)
            let run = try await SwiftOTelService.running(backend.service) { workload.emitSpans(backend.factory) }
            cost = (run.wallSeconds, run.cpuSeconds)
        } else {
            let backend = try OTel.makeLoggingBackend(configuration: configuration)
            let logger = Logger(label: Workload.loggerLabel, factory: backend.factory)
            let run = try await SwiftOTelService.running(backend.service) { workload.emitLogRecords(logger) }
            cost = (run.wallSeconds, run.cpuSeconds)
        }
        let dropped = min(items, lost.value)
        return DeliveryResult(
            mode: "swift-otel", signal: traces ? "traces" : "logs", items: items, delivered: items - dropped, dropped: dropped,
            wallSeconds: cost.wallSeconds, cpuSeconds: cost.cpuSeconds, encodedBytes: 0)
    }
}
