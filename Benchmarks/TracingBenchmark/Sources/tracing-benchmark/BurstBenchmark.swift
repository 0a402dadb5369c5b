import Foundation
import OTLPTelemetry
import OTLPWire
import Tracing

/// A burst into files at the default batching settings: `threads` threads each end `items` spans (one
/// attribute, children of a root renewed every 1,000 spans) and emit `items` log records, as fast as they
/// can, into `traces.u32be.bin` and `logs.u32be.bin.gz` through ``OTLPTelemetry``. Reports per run what the
/// batching dropped (`queue_full`, and any other reason) and how long the burst and the shutdown took.
///
/// usage: tracing-benchmark --burst [--threads T] [--items N] [--runs R] [--when-full drop|wait] [--queue Q]
/// [--only traces|logs]  (`--queue` and `--only` for callgrind: a queue large enough for nothing to be dropped,
/// one signal, so the worker thread's instructions divided by the items are its cost per item)
enum BurstBenchmark {
    struct Options {
        var threads = 4
        var items = 25_000
        var runs = 3
        var whenFull = "drop"
        /// The queue size, default the specification's (a large one for callgrind: nothing dropped).
        var maxQueueSize = OTLPBatchConfiguration.default.maxQueueSize
        /// `traces` or `logs` to make only spans or only log records (callgrind's worker counts).
        var only: String?
    }

    /// The default batching settings, with `whenFull` as asked.
    static func burstBatch(_ options: Options) -> OTLPBatchConfiguration {
        var batch = OTLPBatchConfiguration.default
        batch.maxQueueSize = options.maxQueueSize
        batch.whenFull = options.whenFull == "wait" ? .wait : .drop
        return batch
    }

    static func run(_ options: Options) throws -> Int32 {
        print(
            "| burst run (\(options.threads) threads x \(options.items) spans + \(options.items) log records, default batching, whenFull \(options.whenFull)) | spans dropped | log records dropped | burst s | shutdown s |"
        )
        print("|---|---:|---:|---:|---:|")
        var failed = false
        for run in 1...max(options.runs, 1) {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("burst-benchmark-\(getpid())-\(run)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            var configuration = OTLPTelemetryConfiguration(
                service: .init(name: "burst-benchmark"),
                traces: .init(path: directory.appendingPathComponent("traces.u32be.bin").path),
                logs: .init(path: directory.appendingPathComponent("logs.u32be.bin.gz").path, gzip: true))
            configuration.batch = burstBatch(options)
            let telemetry = OTLPTelemetry(configuration: configuration)
            let tracer = telemetry.tracer
            let emitter = telemetry.logEmitter
            let perThread = options.items
            let start = DispatchTime.now().uptimeNanoseconds
            let makeSpans = options.only != "logs"
            let makeLogRecords = options.only != "traces"
            DispatchQueue.concurrentPerform(iterations: options.threads) { thread in
                // `perThread` spans: a root, then its children, a new root every 1,000 spans.
                var root: OTLPTracingSpan? = makeSpans ? tracer.startSpan("root-\(thread)") : nil
                for index in 0..<perThread {
                    if let current = root, index + 1 < perThread {
                        if index % 1000 == 999 {
                            current.end()
                            root = tracer.startSpan("root-\(thread)")
                        } else {
                            let span = tracer.startSpan("work", context: current.context)
                            span.attributes["index"] = index
                            span.end()
                        }
                    }
                    if makeLogRecords {
                        emitter.emit(OTLPLogRecord(timeUnixNano: UInt64(index + 1), body: .string("log \(thread) \(index)")))
                    }
                }
                root?.end()
            }
            let burst = DispatchTime.now().uptimeNanoseconds
            telemetry.shutdown()
            let end = DispatchTime.now().uptimeNanoseconds
            let snapshot = telemetry.counters.snapshot
            let expected = options.threads * perThread
            let expectedSpans = makeSpans ? expected : 0
            let expectedLogs = makeLogRecords ? expected : 0
            func dropped(_ drops: [OTLPDropReason: Int]) -> String {
                drops.isEmpty
                    ? "0" : drops.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            }
            print(
                "| \(run) | \(dropped(snapshot.spansDropped)) | \(dropped(snapshot.logRecordsDropped)) | \(String(format: "%.3f", Double(burst - start) / 1e9)) | \(String(format: "%.3f", Double(end - burst) / 1e9)) |"
            )
            if snapshot.spansReceived != expectedSpans || snapshot.logRecordsReceived != expectedLogs
                || snapshot.spansExported + snapshot.spansDropped.values.reduce(0, +) != expectedSpans
                || snapshot.logRecordsExported + snapshot.logRecordsDropped.values.reduce(0, +) != expectedLogs
            {
                print("error: not every item is accounted for: \(snapshot)")
                failed = true
            }
        }
        return failed ? 1 : 0
    }
}
