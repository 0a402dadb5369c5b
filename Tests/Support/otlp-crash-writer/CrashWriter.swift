import Foundation
import OTLPHTTP
import OTLPTelemetry
import OTLPWire
import Tracing

#if canImport(Glibc)
import Glibc
#endif

/// Test helper for the crash tests: writes spans through OTLPTelemetry until it is killed.
///
/// usage: otlp-crash-writer PATH FRAMING gzip|plain
///        otlp-crash-writer journal|recover STATE-DIRECTORY TRACES-PATH
///
/// `journal` opens the open-span journal in STATE-DIRECTORY (printing `recovered N` for what a previous process
/// left), then makes journaled spans `work` (attribute `index` 0, 1, 2, …), each open while the next starts,
/// exported in small batches, until it is killed; `recover` opens the journal, prints `recovered N` and shuts
/// down cleanly. TRACES-PATH `-`: no file output.
///
/// Environment (journal and recover):
/// - `OTLP_CRASH_WRITER_SPOOL=DIR`: spans also go to a collector that is not there (`http://127.0.0.1:9`)
///   through the spool DIR (they stay there);
/// - `OTLP_CRASH_WRITER_KILL_BEFORE_ACKNOWLEDGEMENT=N`: the process kills itself (SIGKILL) the Nth time the
///   journal is about to write an `exported` record: right after an exporter took a batch, before the journal
///   hears of it (the span journal's test fault point).
/// It makes spans without pause while the batch stage's worker writes them; every 500 spans it prints
/// `flushed N`, N being the spans the exporter has written completely so far (the counters' exported count).
@main
struct CrashWriter {
    static func main() {
        let arguments = CommandLine.arguments
        if arguments.count == 4, arguments[1] == "journal" || arguments[1] == "recover" {
            journal(stateDirectory: arguments[2], tracesPath: arguments[3], keepWriting: arguments[1] == "journal")
        }
        guard arguments.count == 4, let framing = OTLPFraming(rawValue: arguments[2]) else {
            print("usage: otlp-crash-writer PATH FRAMING gzip|plain")
            exit(64)
        }
        let telemetry = OTLPTelemetry(
            configuration: .init(
                service: .init(name: "crash-writer"),
                traces: .init(path: arguments[1], framing: framing, gzip: arguments[3] == "gzip"),
                batch: .init(maxQueueSize: 100_000, maxExportBatchSize: 64, scheduleDelaySeconds: 0.005)))
        var made = 0
        while true {
            for _ in 0..<500 {
                let span = telemetry.tracer.startSpan("work")
                span.attributes["index"] = made
                span.end()
                made += 1
            }
            let written = telemetry.counters.snapshot.spansExported
            let line = Array("flushed \(written)\n".utf8)  // unbuffered: the parent acts on it at once
            try? line.withUnsafeBytes { bytes in Result { () throws(OTLPWriteError) in try OTLPFileSink.standardOutput.write(bytes) } }
                .get()
        }
    }

    static func printLine(_ text: String) {
        let line = Array("\(text)\n".utf8)  // unbuffered: the parent acts on it at once
        try? line.withUnsafeBytes { bytes in Result { () throws(OTLPWriteError) in try OTLPFileSink.standardOutput.write(bytes) } }.get()
    }

    static func journal(stateDirectory: String, tracesPath: String, keepWriting: Bool) -> Never {
        let environment = ProcessInfo.processInfo.environment
        var configuration = OTLPTelemetryConfiguration(
            service: .init(name: "crash-writer"), traces: .init(path: tracesPath == "-" ? nil : tracesPath),
            // Every earlier run's file is kept (the test reads all of them): rotation counts them toward maxFiles.
            rotation: .init(maxFiles: 1000),
            batch: .init(maxQueueSize: 100_000, maxExportBatchSize: 16, scheduleDelaySeconds: 0.002))
        if let spool = environment["OTLP_CRASH_WRITER_SPOOL"] {
            configuration.otlp = OTLPExporterConfiguration(
                endpoint: "http://127.0.0.1:9", timeoutSeconds: 1, spool: OTLPSpoolConfiguration(directory: spool))
        }
        if let text = environment["OTLP_CRASH_WRITER_KILL_BEFORE_ACKNOWLEDGEMENT"], let count = Int(text) {
            nonisolated(unsafe) var seen = 0
            OTLPSpanJournal.faultPoint = { point in
                guard point == "exported" else { return }
                seen += 1
                if seen == count { kill(getpid(), SIGKILL) }
            }
        }
        let telemetry = OTLPTelemetry(configuration: configuration, exporterFactory: OTLPHTTPExporterFactory())
        do {
            let recovery = try telemetry.openSpanJournal(directory: stateDirectory)
            printLine("recovered \(recovery.spans.count) skipped \(recovery.skippedRecords)")
        } catch {
            printLine("journal refused: \(error)")
            telemetry.shutdown()
            exit(3)
        }
        guard keepWriting else {
            telemetry.shutdown()
            exit(0)
        }
        let tracer = telemetry.tracer.journaled()
        var previous: OTLPTracingSpan?
        var index = 0
        while true {
            let span = tracer.startSpan("work")
            span.attributes["index"] = index
            // Attributes set after the start reach the journal for a span recovered unended.
            span.journalCheckpoint()
            previous?.end()
            previous = span
            index += 1
            if index % 100 == 0 { printLine("started \(index)") }
        }
    }
}
