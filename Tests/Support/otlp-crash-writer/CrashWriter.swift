import OTLPTelemetry
import OTLPWire
import Tracing

#if canImport(Glibc)
import Glibc
#endif

/// Test helper for the crash test: writes spans through OTLPTelemetry until it is killed.
///
/// usage: otlp-crash-writer PATH FRAMING gzip|plain
/// It makes spans without pause while the batch stage's worker writes them; every 500 spans it prints
/// `flushed N`, N being the spans the exporter has written completely so far (the counters' exported count).
@main
struct CrashWriter {
    static func main() {
        let arguments = CommandLine.arguments
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
}
