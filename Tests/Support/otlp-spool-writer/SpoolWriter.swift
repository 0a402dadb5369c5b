import Foundation
import OTLPHTTP
import OTLPTelemetry
import OTLPWire
import Tracing

#if canImport(Glibc)
import Glibc
#endif

/// Test helper for the spool's process tests: an app that delivers through `otlp.spool`.
///
/// usage: otlp-spool-writer CONFIG COUNT
/// Loads the configuration file CONFIG (its `otlp` section, spool included), makes COUNT spans named
/// `span I` and COUNT log records with the body `record I` (I from 0), shuts down (which uploads what it
/// can within the timeout and leaves the rest in the spool), and prints the delivery counters.
@main
struct SpoolWriter {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count == 3, let count = Int(arguments[2]), count >= 0 else {
            print("usage: otlp-spool-writer CONFIG COUNT")
            exit(64)
        }
        let configuration: OTLPTelemetryConfiguration
        do {
            configuration = try OTLPTelemetryConfiguration.load(contentsOf: URL(fileURLWithPath: arguments[1])).configuration
        } catch {
            print("otlp-spool-writer: \(error)")
            exit(2)
        }
        let telemetry = OTLPTelemetry(configuration: configuration, exporterFactory: OTLPHTTPExporterFactory())
        for index in 0..<count {
            telemetry.tracer.startSpan("span \(index)").end()
            telemetry.logEmitter.emit(OTLPLogRecord(timeUnixNano: UInt64(index + 1), body: .string("record \(index)")))
        }
        telemetry.shutdown()
        print(telemetry.deliveryCounters.snapshot)
    }
}
