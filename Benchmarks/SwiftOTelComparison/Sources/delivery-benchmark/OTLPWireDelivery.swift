import Foundation
import Logging
import OTLPHTTP
import OTLPTelemetry
import OTLPWire
import PeerSupport

/// The OTLPWire side: `OTLPTelemetry` with only its `otlp` section (no file output), delivering through
/// `OTLPHTTPExporterFactory`; one pipeline per signal, shut down at the end of its run. With `toFile`, the same
/// pipeline writes the same requests into a file instead (u32be records, one gzip member per batch with gzip):
/// the file path that delivery is measured against.
struct OTLPWireDelivery {
    var options: DeliveryOptions
    /// The directory of the file path's output files; nil to deliver over OTLP/HTTP.
    var fileDirectory: String?

    func run(_ workload: Workload) async -> [DeliveryResult] {
        [deliver(.traces, workload), deliver(.logs, workload)]
    }

    private func deliver(_ signal: OTLPSignal, _ workload: Workload) -> DeliveryResult {
        let batch = OTLPBatchConfiguration(
            maxQueueSize: options.queueSize, maxExportBatchSize: options.maxExportBatchSize,
            scheduleDelaySeconds: options.scheduleDelaySeconds)
        var configuration = OTLPTelemetryConfiguration(
            service: .init(name: "delivery-benchmark"), durability: .none, batch: batch,
            otlp: OTLPExporterConfiguration(
                endpoint: options.endpoint, protocol: .httpProtobuf, compression: options.gzip ? .gzip : .none,
                traces: .init(enabled: signal == .traces), logs: .init(enabled: signal == .logs)))
        if let fileDirectory {
            let output = OTLPTelemetryConfiguration.Output(path: "\(fileDirectory)/\(signal.rawValue).u32be.bin", gzip: options.gzip)
            configuration = OTLPTelemetryConfiguration(
                service: .init(name: "delivery-benchmark"), traces: signal == .traces ? output : .default,
                logs: signal == .logs ? output : .default, durability: .none, batch: batch)
        }
        let telemetry = OTLPTelemetry(
            configuration: configuration, scope: OTLPInstrumentationScope(name: "bench", version: "1.0.0"),
            exporterFactory: OTLPHTTPExporterFactory())
        let items = signal == .traces ? workload.spans.count : workload.logRecords.count
        let cost = ProcessCost.measureSync {
            switch signal {
            case .traces: workload.emitSpans(telemetry.tracer)
            case .logs:
                workload.emitLogRecords(
                    Logger(label: Workload.loggerLabel) { telemetry.logEmitter.logHandler(label: $0, logLevel: .trace) })
            case .metrics: preconditionFailure("the SDK delivers spans and log records, not metrics")
            }
            telemetry.shutdown()
        }
        let delivery = fileDirectory == nil ? telemetry.deliveryCounters.snapshot : telemetry.counters.snapshot
        let delivered = signal == .traces ? delivery.spansExported : delivery.logRecordsExported
        return DeliveryResult(
            mode: (fileDirectory == nil ? "otlpwire" : "otlpwire-file") + (options.gzip ? "" : "-identity"), signal: signal.rawValue,
            items: items,
            delivered: delivered, dropped: items - delivered, wallSeconds: cost.wallSeconds, cpuSeconds: cost.cpuSeconds,
            encodedBytes: delivery.bytesWritten)
    }
}

extension OTLPWireDelivery {
    /// The file path: both signals written into a temporary directory, removed afterwards.
    static func toTemporaryFiles(options: DeliveryOptions, _ workload: Workload) async -> [DeliveryResult] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("delivery-benchmark-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return await OTLPWireDelivery(options: options, fileDirectory: directory).run(workload)
    }
}
