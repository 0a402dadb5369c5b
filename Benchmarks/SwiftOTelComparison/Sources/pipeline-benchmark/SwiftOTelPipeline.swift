import Logging
import OTel
import PeerSupport

/// The swift-otel side, as its README sets it up: `OTel.makeTracingBackend` with its defaults (always-on
/// sampling), exporter `none` (`swift-otel`) or OTLP/HTTP protobuf to the collector (`swift-otel-otlp`),
/// its service run in a `ServiceGroup` and shut down gracefully at the end (which exports what is queued).
/// swift-otel has no counters: spans it reports lost in its diagnostic log are counted as dropped.
struct SwiftOTelPipeline {
    var options: PipelineOptions

    func run() async throws -> PipelineResult {
        let lost = SwiftOTelDiagnostics.LostItems()
        var configuration = OTel.Configuration.benchmark(serviceName: "pipeline-benchmark", lost: lost)
        if let queue = options.maxQueueSize { configuration.traces.batchSpanProcessor.maxQueueSize = queue }
        if options.mode == .swiftOTelOTLP {
            var exporter = OTel.Configuration.OTLPExporterConfiguration.default
            exporter.protocol = .httpProtobuf
            exporter.endpoint = "\(options.endpoint)/v1/traces"  // an explicit endpoint is used as is
            configuration.traces.otlpExporter = exporter
        } else {
            configuration.traces.exporter = .none
        }
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        let run = try await SwiftOTelService.running(backend.service) {
            await SpanWorkload(options: options).emit(through: backend.factory)
        }
        let dropped = min(options.spans, lost.value)
        return PipelineResult(
            options: options, hotPathSeconds: run.result, totalSeconds: run.wallSeconds,
            exported: options.spans - dropped, dropped: dropped)
    }
}
