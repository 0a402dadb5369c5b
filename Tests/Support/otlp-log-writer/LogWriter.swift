import Foundation
import Logging
import OTLPTelemetry
import Tracing

#if canImport(Glibc)
import Glibc
#endif

/// Test helper for the bootstrap tests: a tool that sets up swift-log in one of the ways a program does.
///
/// usage: otlp-log-writer MODE DIRECTORY
/// Writes spans to DIRECTORY/traces.u32be.bin and log records to DIRECTORY/logs.u32be.bin, logs
/// `inside the span` within the span `work` and `outside any span` after it, and shuts down. MODE:
/// - `bootstrap`: `telemetry.bootstrap()` (console lines on standard error, beside the log records);
/// - `bootstrap-quiet`: the same with `consoleLogging` off;
/// - `self-bootstrap`: the program bootstraps swift-log itself (the telemetry's handler and one on standard
///   output, with the trace context metadata provider), then `telemetry.bootstrapTracing()`;
/// - `bootstrap-twice`: the program bootstraps swift-log, then calls `telemetry.bootstrap()` (swift-log traps).
@main
struct LogWriter {
    static func main() {
        let arguments = CommandLine.arguments
        let modes = ["bootstrap", "bootstrap-quiet", "self-bootstrap", "bootstrap-twice"]
        guard arguments.count == 3, modes.contains(arguments[1]) else {
            print("usage: otlp-log-writer \(modes.joined(separator: "|")) DIRECTORY")
            exit(64)
        }
        let mode = arguments[1]
        let directory = arguments[2]
        let configuration = OTLPTelemetryConfiguration(
            service: .init(name: "otlp-log-writer"), traces: .init(path: "\(directory)/traces.u32be.bin"),
            logs: .init(path: "\(directory)/logs.u32be.bin"), consoleLogging: mode != "bootstrap-quiet")
        let telemetry = OTLPTelemetry(configuration: configuration)
        switch mode {
        case "self-bootstrap":
            LoggingSystem.bootstrap(
                { label, provider in
                    MultiplexLogHandler([
                        telemetry.logHandler(label: label, metadataProvider: provider),
                        StreamLogHandler.standardOutput(label: label, metadataProvider: provider),
                    ])
                }, metadataProvider: .otlpTraceContext)
            telemetry.bootstrapTracing()
        case "bootstrap-twice":
            LoggingSystem.bootstrap(StreamLogHandler.standardError)
            telemetry.bootstrap()
        default:
            telemetry.bootstrap()
        }
        let logger = Logger(label: "writer")
        withSpan("work") { _ in logger.info("inside the span") }
        logger.info("outside any span")
        telemetry.shutdown()
    }
}
