import Foundation
import OTLPTelemetry
import OTLPWire
import Tracing

#if canImport(Glibc)
import Glibc
#endif

/// The whole pipeline's cost against the tracing API's own: `spans` spans with 8 attributes through
/// ``OTLPTelemetry`` into a gzip file (shutdown included: everything encoded, compressed and written), beside the
/// same calls on swift-distributed-tracing's `NoOpTracer`. Each configuration runs in a process of its own, in
/// interleaved rounds; a process measures the CPU time of all its threads (`getrusage(RUSAGE_SELF)`, user +
/// system) from the first span to the end of shutdown and divides it by the spans. The ratios are medians of
/// the rounds against `NoOpTracer`. Each gzip level is measured with a queue that holds every span; the default
/// level also with the default queue and callers that wait for room (`whenFull` `wait`), where the queue stays small.
///
/// usage: tracing-benchmark --whole-process [--spans N] [--rounds R] [--gzip-levels 1,6]
enum WholeProcessBenchmark {
    struct Options {
        var spans = 200_000
        var rounds = 3
        /// The gzip levels measured, each a configuration of its own: the default level first, then 6 (zlib's own
        /// default) and 1 when they differ from it.
        var gzipLevels = [OTLPTelemetryConfiguration.Output.default.gzipLevel, 6, 1].reduce(into: [Int]()) { levels, level in
            if !levels.contains(level) { levels.append(level) }
        }
    }

    /// CPU seconds of every thread of this process so far, user and system.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return .nan }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// One configuration in this process: `noop`, or `gzip:LEVEL` through OTLPTelemetry. Prints
    /// `cpu_ns_per_span N bytes B` and returns the exit status.
    static func child(_ configuration: String, spans: Int) throws -> Int32 {
        if configuration == "noop" {
            let tracer = NoOpTracer()
            let start = processCPUSeconds()
            for index in 0..<spans { TracingBenchmark.spanWith8Attributes(tracer, index) }
            let cpu = processCPUSeconds() - start
            print("cpu_ns_per_span \(cpu * 1e9 / Double(spans)) bytes 0")
            return 0
        }
        // `gzip:LEVEL`: a queue with room for every span. `wait:LEVEL`: the default queue, and callers wait for
        // room when it is full (whenFull wait) instead of the queue growing to hold what the worker has not
        // taken yet. Both export every span.
        let waits = configuration.hasPrefix("wait:")
        guard configuration.hasPrefix("gzip:") || waits, let level = Int(configuration.dropFirst(5)) else { return 64 }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("whole-process-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("traces.u32be.bin.gz").path
        var batch = OTLPBatchConfiguration.default
        // What is measured is the cost of exporting them all, never of dropping some: room for every span, or
        // callers that wait for room.
        if waits {
            batch.whenFull = .wait
        } else {
            batch.maxQueueSize = spans + 1
        }
        let telemetry = OTLPTelemetry(
            configuration: .init(traces: .init(path: path, gzip: true, gzipLevel: level), batch: batch, consoleLogging: false),
            resource: OTLPResourceDetector.detect(serviceName: "tracing-benchmark"), diagnostics: { print("whole-process: \($0)") })
        let tracer = telemetry.tracer(scope: OTLPInstrumentationScope(name: "bench", version: "1"))
        let start = processCPUSeconds()
        for index in 0..<spans { TracingBenchmark.spanWith8Attributes(tracer, index) }
        telemetry.shutdown()
        let cpu = processCPUSeconds() - start
        let snapshot = telemetry.counters.snapshot
        guard snapshot.spansExported == spans, snapshot.spansDropped.values.reduce(0, +) == 0 else {
            print("error: \(snapshot)")
            return 1
        }
        let bytes = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        print("cpu_ns_per_span \(cpu * 1e9 / Double(spans)) bytes \(bytes)")
        return 0
    }

    /// Runs `configuration` in a child process (without the allocation counter preloaded) and returns its
    /// CPU per span and file size.
    static func runChild(_ configuration: String, spans: Int) throws -> (nanos: Double, bytes: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--whole-process-child", configuration, "--spans", "\(spans)"]
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = nil
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard process.terminationStatus == 0, let at = fields.firstIndex(of: "cpu_ns_per_span"), at + 3 < fields.count,
            let nanos = Double(fields[at + 1]), let bytes = Int(fields[at + 3])
        else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(configuration) failed: \(text)"])
        }
        return (nanos, bytes)
    }

    static func run(_ options: Options) throws -> Int32 {
        let defaultLevel = OTLPTelemetryConfiguration.Output.default.gzipLevel
        let configurations = ["noop"] + options.gzipLevels.map { "gzip:\($0)" } + ["wait:\(defaultLevel)"]
        var nanos: [String: [Double]] = [:]
        var ratios: [String: [Double]] = [:]
        var bytes: [String: Int] = [:]
        for _ in 0..<max(options.rounds, 1) {
            var round: [String: Double] = [:]
            for configuration in configurations {
                let result = try runChild(configuration, spans: options.spans)
                round[configuration] = result.nanos
                nanos[configuration, default: []].append(result.nanos)
                bytes[configuration] = result.bytes
            }
            for configuration in configurations { ratios[configuration, default: []].append(round[configuration]! / round["noop"]!) }
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        func fixed(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
        print(
            "| whole process, \(options.spans) spans with 8 attributes (CPU of all threads, getrusage; median of \(options.rounds) interleaved rounds, each configuration its own process) | CPU µs/span | file bytes | vs NoOpTracer |"
        )
        print("|---|---:|---:|---:|")
        for configuration in configurations {
            let name =
                configuration == "noop"
                ? "NoOpTracer (swift-distributed-tracing), same calls"
                : configuration.hasPrefix("wait:")
                    ? "OTLPTelemetry into a gzip file, level \(defaultLevel), the default queue (\(OTLPBatchConfiguration.default.maxQueueSize)) with whenFull wait"
                    : "OTLPTelemetry into a gzip file, level \(configuration.dropFirst(5))\(configuration == "gzip:\(defaultLevel)" ? " (default)" : ""), a queue with room for every span, shutdown included"
            print(
                "| \(name) | \(fixed(median(nanos[configuration]!) / 1e3, 2)) | \(configuration == "noop" ? "" : "\(bytes[configuration]!)") | \(fixed(median(ratios[configuration]!), 2)) |"
            )
        }
        return 0
    }
}
