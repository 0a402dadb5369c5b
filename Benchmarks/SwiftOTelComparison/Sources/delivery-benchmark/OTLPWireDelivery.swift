import Logging
import OTLPHTTP
import OTLPTelemetry
import OTLPWire
import PeerSupport

/// The OTLPWire side: `OTLPTelemetry` with only its `otlp` section (no file output), delivering through
/// `OTLPHTTPExporterFactory`; one pipeline per signal, shut down at the end of its run.
struct OTLPWireDelivery {
    var options: DeliveryOptions

    func run(_ workload: Workload) async -> [DeliveryResult] {
        [deliver(.traces, workload), deliver(.logs, workload)]
    }

    private func deliver(_ signal: OTLPSignal, _ workload: Workload) -> DeliveryResult {
        let configuration = OTLPTelemetryConfiguration(
            service: .init(name: "delivery-benchmark"),
            durability: .none,
            batch: OTLPBatchConfiguration(
                maxQueueSize: options.queueSize, maxExportBatchSize: options.maxExportBatchSize,
                scheduleDelaySeconds: options.scheduleDelaySeconds),
            otlp: OTLPExporterConfiguration(
                endpoint: options.endpoint, protocol: .httpProtobuf, compression: options.gzip ? .gzip : .none,
                traces: .init(enabled: signal == .traces), logs: .init(enabled: signal == .logs)))
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
        let delivery = telemetry.deliveryCounters.snapshot
        let delivered = signal == .traces ? delivery.spansExported : delivery.logRecordsExported
        return DeliveryResult(
            mode: options.gzip ? "otlpwire" : "otlpwire-identity", signal: signal.rawValue, items: items,
            delivered: delivered, dropped: items - delivered, wallSeconds: cost.wallSeconds, cpuSeconds: cost.cpuSeconds,
            encodedBytes: delivery.bytesWritten)
    }
}
