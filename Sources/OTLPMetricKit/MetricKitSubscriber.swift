#if canImport(MetricKit)
import Foundation
public import MetricKit
public import OTLPTelemetry
import OTLPWire

/// Subscribes to MetricKit and sends every payload through ``MetricKitConverter`` into an
/// ``OTLPTelemetry`` pipeline: the same conversion as for uploaded JSON, fed by
/// `jsonRepresentation()`. The pipeline's application processors see what it exports: with a session
/// manager installed, each payload carries the session in which it arrived (through
/// `OTLPTracer.export(_:)` and the log emitter). Conversion errors go to the pipeline's diagnostics
/// (standard error).
@available(iOS 14.0, macOS 12.0, *)
public final class MetricKitSubscriber: NSObject, MXMetricManagerSubscriber, @unchecked Sendable {
    private let converter: MetricKitConverter
    private let tracer: OTLPTracer
    private let logEmitter: OTLPLogEmitter

    /// A subscriber that exports through `telemetry`'s tracer and log emitter, under `options.scope`.
    public init(telemetry: OTLPTelemetry, options: MetricKitConverter.Options = .default) {
        converter = MetricKitConverter(options: options)
        tracer = telemetry.tracer(scope: options.scope)
        logEmitter = telemetry.logEmitter(scope: options.scope)
        super.init()
    }

    /// Starts receiving payloads.
    public func start() { MXMetricManager.shared.add(self) }

    /// Stops receiving payloads.
    public func stop() { MXMetricManager.shared.remove(self) }

    /// Exports each metric payload's spans; a payload that cannot be converted is reported and skipped.
    public func didReceive(_ payloads: [MXMetricPayload]) {
        for payload in payloads {
            do {
                for span in try converter.convertMetricPayload(json: Array(payload.jsonRepresentation())) { tracer.export(span) }
            } catch {
                OTLPDiagnostics.standardError("MetricKit metric payload: \(error)")
            }
        }
    }

    /// Exports each diagnostic payload's span and log records; a payload that cannot be converted is reported and skipped.
    public func didReceive(_ payloads: [MXDiagnosticPayload]) {
        for payload in payloads {
            do {
                let result = try converter.convertDiagnosticPayload(json: Array(payload.jsonRepresentation()))
                tracer.export(result.span)
                for record in result.logRecords { logEmitter.emit(record, context: nil) }
            } catch {
                OTLPDiagnostics.standardError("MetricKit diagnostic payload: \(error)")
            }
        }
    }
}
#endif
