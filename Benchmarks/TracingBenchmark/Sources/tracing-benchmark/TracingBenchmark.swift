import Foundation
import MallocInterposerSwift
import OTLPInstrumentation
import OTLPMetricKit
import OTLPTelemetry
import OTLPWire
import Tracing

/// Cost of starting and ending a span with 8 attributes through the swift-distributed-tracing API into
/// OTLPWire's batching (ns and allocations per span), beside the same calls on the API's NoOpTracer
/// measured in the same run; and the throughput of the whole path (tracer, batching, encoder,
/// file) into a file.
///
/// usage: tracing-benchmark [--spans N] [--reps R] [--hot-path-only | --noop-only | --journal-only]     (run
/// through run.sh: allocation counts need LD_PRELOAD; `--hot-path-only` measures OTLPTracer's spans alone,
/// `--noop-only` NoOpTracer's and `--journal-only` the open-span journal's comparison, for a profiler or
/// callgrind); `--burst` runs ``BurstBenchmark`` instead, `--whole-process`
/// ``WholeProcessBenchmark``)
@main
struct TracingBenchmark {
    static func spanWith8Attributes<T: Tracer>(_ tracer: T, _ index: Int) {
        let span = tracer.startSpan("HTTP GET /cart", ofKind: .server)
        span.attributes["http.request.method"] = "GET"
        span.attributes["url.path"] = "/cart"
        span.attributes["http.response.status_code"] = 200
        span.attributes["server.address"] = "shop.example.com"
        span.attributes["user.session.id"] = "8f2c1d9e-session"
        span.attributes["app.item.count"] = index & 63
        span.attributes["app.cache.hit"] = index & 1 == 0
        span.attributes["app.ratio"] = 0.25
        span.end()
    }

    /// Median seconds and allocations per span over `reps` timed runs (after one warm-up).
    /// The calling thread's CPU time (user and system) so far, in nanoseconds: unlike wall time, it leaves
    /// out what other processes on a loaded machine take.
    static func threadCPUNanos() -> UInt64 {
        var time = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return 0 }
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    static func measure(
        _ spans: Int, _ reps: Int, _ body: (Int) -> Void, after: () -> Void = {}
    ) -> (nanos: Double, allocations: Double, cpuNanos: Double) {
        var times: [Double] = []
        var allocations: [Double] = []
        var cpuTimes: [Double] = []
        for rep in -1..<reps {
            MallocInterposerSwift.reset()
            MallocInterposerSwift.hook()
            let start = DispatchTime.now().uptimeNanoseconds
            let cpuStart = threadCPUNanos()
            for index in 0..<spans { body(index) }
            let cpuEnd = threadCPUNanos()
            let end = DispatchTime.now().uptimeNanoseconds
            MallocInterposerSwift.unhook()
            let counted = MallocInterposerSwift.getStatistics().mallocCount
            after()
            if rep >= 0 {
                times.append(Double(end - start) / Double(spans))
                allocations.append(Double(counted) / Double(spans))
                cpuTimes.append(Double(cpuEnd - cpuStart) / Double(spans))
            }
        }
        return (times.sorted()[times.count / 2], allocations.sorted()[allocations.count / 2], cpuTimes.sorted()[cpuTimes.count / 2])
    }

    /// The open-span journal: the same spans through one pipeline, unjournaled and journaled (tracer.journaled(),
    /// the way the launch and view instrumentations' spans go), durability flush, in this run.
    static func measureJournal(
        _ spans: Int, _ reps: Int, resource: OTLPResource, directory: URL
    ) throws -> (
        spans: Int, unjournaled: (nanos: Double, allocations: Double, cpuNanos: Double),
        journaled: (nanos: Double, allocations: Double, cpuNanos: Double)
    ) {
        let journalSpans = max(spans / 20, 1)
        let journalTelemetry = OTLPTelemetry(
            configuration: .init(
                traces: .init(path: directory.appendingPathComponent("journaled.u32be.bin").path),
                batch: .init(maxQueueSize: journalSpans * 2)),
            resource: resource, diagnostics: { print("journal benchmark: \($0)") })
        try journalTelemetry.openSpanJournal(directory: directory.appendingPathComponent("state").path)
        let unjournaledTracer = journalTelemetry.tracer(scope: OTLPInstrumentationScope(name: "bench", version: "1"))
        let journaledTracer = unjournaledTracer.journaled()
        let unjournaled = measure(
            journalSpans, reps, { spanWith8Attributes(unjournaledTracer, $0) }, after: { unjournaledTracer.forceFlush() })
        let journaled = measure(journalSpans, reps, { spanWith8Attributes(journaledTracer, $0) }, after: { journaledTracer.forceFlush() })
        journalTelemetry.shutdown()
        return (journalSpans, unjournaled, journaled)
    }

    /// The journal's comparison line.
    static func journalLine(
        _ unjournaled: (nanos: Double, allocations: Double, cpuNanos: Double),
        _ journaled: (nanos: Double, allocations: Double, cpuNanos: Double)
    ) -> String {
        func fixed(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
        return
            "a journaled span costs \(fixed((journaled.nanos - unjournaled.nanos) / 1e3, 1)) µs more in wall time and \(fixed((journaled.cpuNanos - unjournaled.cpuNanos) / 1e3, 1)) µs more of the caller's CPU time (\(fixed(unjournaled.cpuNanos / 1e3, 1)) → \(fixed(journaled.cpuNanos / 1e3, 1)) µs per span; CPU time leaves out other processes on a loaded machine)"
    }

    static func main() throws {
        var spans = 200_000
        var reps = 5
        var hotPathOnly = false
        var noopOnly = false
        var journalOnly = false
        var burst: BurstBenchmark.Options?
        var wholeProcess: WholeProcessBenchmark.Options?
        var wholeProcessChild: String?
        var arguments = CommandLine.arguments.dropFirst()
        while let flag = arguments.popFirst() {
            switch flag {
            case "--spans": spans = Int(arguments.popFirst() ?? "") ?? spans
            case "--reps": reps = Int(arguments.popFirst() ?? "") ?? reps
            case "--hot-path-only": hotPathOnly = true
            case "--noop-only": noopOnly = true
            case "--journal-only": journalOnly = true
            case "--burst": burst = burst ?? BurstBenchmark.Options()
            case "--threads": burst = burst ?? BurstBenchmark.Options(); burst?.threads = Int(arguments.popFirst() ?? "") ?? 4
            case "--items": burst = burst ?? BurstBenchmark.Options(); burst?.items = Int(arguments.popFirst() ?? "") ?? 25_000
            case "--runs": burst = burst ?? BurstBenchmark.Options(); burst?.runs = Int(arguments.popFirst() ?? "") ?? 3
            case "--when-full": burst = burst ?? BurstBenchmark.Options(); burst?.whenFull = arguments.popFirst() ?? "drop"
            case "--queue": burst = burst ?? BurstBenchmark.Options(); burst?.maxQueueSize = Int(arguments.popFirst() ?? "") ?? 2048
            case "--whole-process": wholeProcess = wholeProcess ?? WholeProcessBenchmark.Options()
            case "--rounds":
                wholeProcess = wholeProcess ?? WholeProcessBenchmark.Options()
                wholeProcess?.rounds = Int(arguments.popFirst() ?? "") ?? 3
            case "--gzip-levels":
                wholeProcess = wholeProcess ?? WholeProcessBenchmark.Options()
                let levels = (arguments.popFirst() ?? "").split(separator: ",").compactMap { Int($0) }
                if !levels.isEmpty { wholeProcess?.gzipLevels = levels }
            case "--whole-process-child": wholeProcessChild = arguments.popFirst()
            case "--only": burst = burst ?? BurstBenchmark.Options(); burst?.only = arguments.popFirst()
            default:
                print(
                    "usage: tracing-benchmark [--spans N] [--reps R] [--hot-path-only | --noop-only | --journal-only]\n"
                        + "       tracing-benchmark --whole-process [--spans N] [--rounds R] [--gzip-levels 6,1]\n"
                        + "       tracing-benchmark --burst [--threads T] [--items N] [--runs R] [--when-full drop|wait] [--queue Q] [--only traces|logs]"
                )
                exit(64)
            }
        }
        if let burst { exit(try BurstBenchmark.run(burst)) }
        if let wholeProcessChild { exit(try WholeProcessBenchmark.child(wholeProcessChild, spans: spans)) }
        if var wholeProcess {
            wholeProcess.spans = spans
            exit(try WholeProcessBenchmark.run(wholeProcess))
        }
        MallocInterposerSwift.initialize()
        let resource = OTLPResourceDetector.detect(serviceName: "tracing-benchmark")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tracing-benchmark-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        if journalOnly {
            let (journalSpans, unjournaled, journaled) = try measureJournal(spans, reps, resource: resource, directory: directory)
            print(
                "\(journalSpans) spans, median of \(reps): not journaled \(String(format: "%.1f", unjournaled.allocations)), journaled \(String(format: "%.1f", journaled.allocations)) allocations/span"
            )
            print(journalLine(unjournaled, journaled))
            return
        }

        // Baseline: the Tracing API's own no-op tracer, same calls.
        let noop = hotPathOnly ? (nanos: 1, allocations: 0, cpuNanos: 1) : measure(spans, reps) { spanWith8Attributes(NoOpTracer(), $0) }
        if noopOnly {
            print(
                "NoOpTracer start + 8 attributes + end: \(String(format: "%.0f", noop.nanos)) ns/span, \(String(format: "%.1f", noop.allocations)) allocations/span"
            )
            return
        }

        // Start + end into the batching (its worker encodes and writes to /dev/null meanwhile).
        let counters = OTLPTelemetryCounters()
        let tracer = OTLPTracer(
            exporter: OTLPStreamExporter<OTLPScopedSpan>(
                sink: try OTLPFileSink(path: "/dev/null"), durability: .none, resource: resource, counters: counters),
            batch: .init(maxQueueSize: spans * 2), counters: counters, scope: OTLPInstrumentationScope(name: "bench", version: "1"))
        let ours = measure(spans, reps, { spanWith8Attributes(tracer, $0) }, after: { tracer.forceFlush() })
        tracer.shutdown()
        if hotPathOnly {
            // For a profiler: the tracer's hot path and nothing else.
            print(
                "OTLPTracer start + 8 attributes + end: \(String(format: "%.0f", ours.nanos)) ns/span, \(String(format: "%.1f", ours.allocations)) allocations/span"
            )
            return
        }

        // Whole path into a file: from the first startSpan to everything written (shutdown).
        let path = directory.appendingPathComponent("traces.u32be.bin").path
        let fileCounters = OTLPTelemetryCounters()
        let fileTracer = OTLPTracer(
            exporter: OTLPStreamExporter<OTLPScopedSpan>(path: path, durability: .none, resource: resource, counters: fileCounters),
            batch: .init(maxQueueSize: spans * 2), counters: fileCounters, scope: OTLPInstrumentationScope(name: "bench", version: "1"))
        let start = DispatchTime.now().uptimeNanoseconds
        for index in 0..<spans { spanWith8Attributes(fileTracer, index) }
        fileTracer.shutdown()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let bytes = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        let snapshot = fileCounters.snapshot
        guard snapshot.spansExported == spans, snapshot.spansDropped.values.reduce(0, +) == 0 else {
            print("error: \(snapshot)")
            exit(1)
        }

        // View tracing: one body evaluation + appear + disappear per view, disabled and enabled.
        let viewCounters = OTLPTelemetryCounters()
        let viewTracer = OTLPTracer(
            exporter: OTLPStreamExporter<OTLPScopedSpan>(
                sink: try OTLPFileSink(path: "/dev/null"), durability: .none, resource: resource, counters: viewCounters),
            batch: .init(maxQueueSize: spans * 8), counters: viewCounters, scope: ViewTraceTracker<OTLPTracer>.scope)
        let views = max(spans / 10, 1)
        let disabledTracker = ViewTraceTracker("HomeScreen", tracer: viewTracer, isEnabled: false)
        var sink = 0
        let disabled = measure(views, reps) { index in
            sink &+= disabledTracker.body { index }
            disabledTracker.onAppear()
            disabledTracker.onDisappear()
        }
        let enabled = measure(
            views, reps,
            { index in
                let tracker = ViewTraceTracker("HomeScreen", tracer: viewTracer)
                sink &+= tracker.body { index }
                tracker.onAppear()
                tracker.onDisappear()
            }, after: { viewTracer.forceFlush() })
        viewTracer.shutdown()
        if sink == 42 { print("") }  // keeps the body results alive

        let (journalSpans, unjournaled, journaled) = try measureJournal(spans, reps, resource: resource, directory: directory)

        func fixed(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
        print("| path (\(spans) spans, median of \(reps)) | ns/span | allocations/span | vs NoOpTracer |")
        print("|---|---:|---:|---:|")
        print("| NoOpTracer (swift-distributed-tracing), same calls | \(fixed(noop.nanos, 0)) | \(fixed(noop.allocations, 1)) | 1.00 |")
        print(
            "| OTLPTracer start + 8 attributes + end, batched (OTLPTracer(exporter:)) | \(fixed(ours.nanos, 0)) | \(fixed(ours.allocations, 1)) | \(fixed(ours.nanos / noop.nanos, 2)) |"
        )
        print(
            "| ViewTraceTracker disabled: body + onAppear + onDisappear | \(fixed(disabled.nanos, 1)) | \(fixed(disabled.allocations, 1)) | |"
        )
        print(
            "| ViewTraceTracker enabled: init + body + onAppear + onDisappear (4 spans) | \(fixed(enabled.nanos, 0)) | \(fixed(enabled.allocations, 1)) | |"
        )
        print(
            "| the same through OTLPTelemetry, not journaled (\(journalSpans) spans) | \(fixed(unjournaled.nanos, 0)) | \(fixed(unjournaled.allocations, 1)) | \(fixed(unjournaled.nanos / noop.nanos, 2)) |"
        )
        print(
            "| the same, journaled (open-span journal, durability flush) | \(fixed(journaled.nanos, 0)) | \(fixed(journaled.allocations, 1)) | \(fixed(journaled.nanos / noop.nanos, 2)) |"
        )
        print("")
        print(journalLine(unjournaled, journaled))
        print(
            "whole path into a file: \(spans) spans in \(fixed(seconds, 3)) s = \(fixed(Double(spans) / seconds / 1e3, 1)) k spans/s, \(fixed(Double(bytes) / seconds / 1e6, 1)) MB/s, \(bytes) bytes, 0 dropped"
        )

        // MetricKit payloads per second, beside Foundation merely parsing the same JSON.
        let samples = ProcessInfo.processInfo.environment["METRICKIT_SAMPLES"] ?? "../../../shared/metrickit-samples"
        if let metric = FileManager.default.contents(atPath: "\(samples)/metric-full.json"),
            let diagnostic = FileManager.default.contents(atPath: "\(samples)/diagnostic-all-kinds.json")
        {
            let converter = MetricKitConverter()
            let rounds = max(spans / 100, 10)
            print("")
            print("| MetricKit payload (\(rounds) conversions, median of \(reps)) | payloads/s | vs JSONSerialization parse only |")
            print("|---|---:|---:|")
            for (name, data) in [
                ("metric-full.json (every section, 3 signposts)", metric),
                ("diagnostic-all-kinds.json (5 diagnostics, stack trees)", diagnostic),
            ] {
                let bytes = Array(data)
                let parse = measure(rounds, reps) { _ in _ = try? JSONSerialization.jsonObject(with: data) }
                let convert = measure(rounds, reps) { _ in _ = try? converter.convertPayload(json: bytes) }
                print("| \(name) | \(fixed(1e9 / convert.nanos, 0)) | \(fixed(parse.nanos / convert.nanos, 2)) |")
            }
        } else {
            print("(MetricKit samples not found at \(samples): set METRICKIT_SAMPLES)")
        }
    }
}
