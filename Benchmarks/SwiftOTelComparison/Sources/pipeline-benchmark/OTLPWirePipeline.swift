import Foundation
import OTLPHTTP
import OTLPTelemetry
import OTLPWire
import PeerSupport

/// The OTLPWire side, as an application sets it up: `OTLPTelemetry` with its defaults, writing traces to a
/// file in a temporary directory (`otlpwire`) or delivering them over OTLP/HTTP with no file
/// (`otlpwire-otlp`); its tracer gets the spans, then `shutdown()` exports what is queued.
struct OTLPWirePipeline {
    var options: PipelineOptions

    func run() async throws -> PipelineResult {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-benchmark-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let delivers = options.mode == .otlpwireOTLP
        var batch = OTLPBatchConfiguration.default
        if let queue = options.maxQueueSize { batch.maxQueueSize = queue }
        let configuration = OTLPTelemetryConfiguration(
            service: .init(name: "pipeline-benchmark"),
            traces: .init(path: delivers ? nil : directory.appendingPathComponent("traces.u32be.bin").path),
            logs: .init(path: nil),
            batch: batch,
            otlp: delivers
                ? OTLPExporterConfiguration(endpoint: options.endpoint, protocol: .httpProtobuf, logs: .init(enabled: false)) : nil)
        let telemetry = OTLPTelemetry(
            configuration: configuration, scope: OTLPInstrumentationScope(name: "bench", version: "1.0.0"),
            exporterFactory: OTLPHTTPExporterFactory())
        guard telemetry.openErrors.isEmpty else { throw PipelineFailure(message: "\(telemetry.openErrors)") }
        let start = ProcessCost.nowNanoseconds()
        let hotPath = await SpanWorkload(options: options).emit(through: telemetry.tracer)
        telemetry.shutdown()
        let total = Double(ProcessCost.nowNanoseconds() - start) / 1e9
        let counters = (delivers ? telemetry.deliveryCounters : telemetry.counters).snapshot
        return PipelineResult(
            options: options, hotPathSeconds: hotPath, totalSeconds: total,
            exported: counters.spansExported, dropped: options.spans - counters.spansExported)
    }
}

/// A configuration that could not run.
struct PipelineFailure: Error {
    var message: String
}
