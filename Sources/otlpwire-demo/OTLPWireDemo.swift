import ArgumentParser
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif
import OTLPHTTP
import OTLPInstrumentation
import OTLPTelemetry
import OTLPWire
import Tracing

/// What `make demo` runs.
///
/// 1. The demo measures its own real cold start: process start (from /proc) to "ready", an `AppStart` span
///    with a child phase for the pipeline's set-up.
/// 2. It replays the example app's launch flow, one simulated process per test scenario of the launch-flow
///    reference (fresh install, returning user with a warm resume, expired session, version upgrade,
///    state restoration, background launch classified PRE_WARM, deep link), with launch phases and view
///    traces of its screens. The scenarios are one app's launches, minutes to weeks apart, with sessions
///    (`telemetry.sessions`): a relaunch within the timeout continues the session, a later one starts a new
///    session that names the previous, with the `session.start` and `session.end` events.
/// 3. It writes traces and logs, one signal per file, under the output folder.
///
/// `--deterministic`: fixed clock, IDs and resource, and no real cold start measurement: the output files
/// are byte-stable (a golden file checks them).
///
/// `--config FILE`: an app configuration (`OTLPAppConfiguration`: the reference keys and the pipeline's);
/// `telemetry.startup.enabled` and `telemetry.isSwiftUIViewInstrumentationEnabled` switch the launch and
/// view instrumentations, `telemetry.sessions` the replay's sessions; the demo always writes to the output
/// folder.
///
/// Every failure is one line on stderr naming what failed (path and system error), and a non-zero exit
/// status: 1 telemetry dropped or an invalid configuration, 2 a file or folder could not be read, created
/// or written, 64 usage error. Wrong arguments create nothing.
@main
struct OTLPWireDemo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "otlpwire-demo",
        abstract: "Write demo telemetry (the example app's launches and views) with OTLPTelemetry.",
        discussion: """
            Measures this process's own cold start, then replays the example app's launch scenarios with \
            their launch phases, view traces and sessions (telemetry.sessions), and writes traces.u32be.bin and logs.u32be.bin.gz \
            (replacing them) under OUTPUT-DIRECTORY, which is created if missing. Show them with otlp-dump.

            With an `otlp` section in the --config file, or OTEL_EXPORTER_OTLP_ENDPOINT (or the other \
            OTEL_EXPORTER_OTLP_* and OTEL_TRACES_EXPORTER / OTEL_LOGS_EXPORTER variables) set, the same \
            telemetry is also delivered to that collector over OTLP/HTTP; the files are written all the same. \
            With `otlp.spool` it goes through that spool directory: what the collector does not take before \
            the demo ends waits there (run the demo again, or otlp-dump send --spool DIR --endpoint URL).

            Exit status: 0 everything written (and delivered); 1 telemetry was dropped (or not delivered), \
            or the configuration is invalid; \
            2 a file or folder could not be read, created or written; 64 usage error.
            """
    )

    @Flag(help: "Fixed clock, IDs and resource, and no real cold start: byte-stable output files.")
    var deterministic = false

    @Option(
        name: .customLong("config"),
        help: ArgumentHelp(
            "An app configuration JSON (OTLPAppConfiguration): telemetry.startup.enabled and "
                + "telemetry.isSwiftUIViewInstrumentationEnabled switch the instrumentations.",
            valueName: "file"))
    var configPath: String?

    @Option(
        name: .customLong("crash-at"),
        help: ArgumentHelp(
            "Kill this process (SIGKILL) inside this launch phase of the first replayed launch that has it; the next run "
                + "with the same output directory reports and exports the interrupted launch. One of: "
                + ExampleAppLaunch.crashablePhases.joined(separator: ", ") + ".",
            valueName: "phase"))
    var crashAt: String?

    @Argument(help: ArgumentHelp("Where the files are written.", valueName: "output-directory"))
    var outputDirectory = "demo-output"

    func validate() throws {
        if let crashAt, !ExampleAppLaunch.crashablePhases.contains(crashAt) {
            throw ValidationError(
                "--crash-at: \(crashAt) is not a launch phase the demo can crash in (\(ExampleAppLaunch.crashablePhases.joined(separator: ", ")))"
            )
        }
    }

    /// Runs the command, with standard output checked at exit (``OTLPStandardOutputCheck``): its status line
    /// or `--help` into a full disk is exit 2.
    static func main() {
        OTLPStandardOutputCheck.install(program: "otlpwire-demo")
        main(nil)
    }

    func run() throws {
        do {
            try write()
        } catch {
            // write() throws only DemoFailure (typed throws).
            FileHandle.standardError.write(Data("otlpwire-demo: \(error)\n".utf8))
            throw ExitCode(error.status.rawValue)
        }
    }

    private func write() throws(DemoFailure) {
        var appConfiguration = OTLPAppConfiguration.default
        if let configPath {
            let data = try ConfigurationFile.read(configPath)
            do {
                let (loaded, warnings) = try OTLPAppConfiguration.load(json: data)
                for warning in warnings { FileHandle.standardError.write(Data("otlpwire-demo: \(configPath): \(warning)\n".utf8)) }
                appConfiguration = loaded
            } catch {
                throw DemoFailure("\(configPath): \(error)", status: .dataError)
            }
        }
        let directory = outputDirectory
        try OutputDirectory.create(directory)
        let appVersion = "5.13.6"

        let start: UInt64 = deterministic ? 1_750_000_000_000_000_000 : OTLPSystemClock().nowUnixNano()
        let replayClock = SimulatedClock(startUnixNano: start)
        var configuration = OTLPTelemetryConfiguration(
            service: .init(name: "otlpwire-demo", version: appVersion),
            traces: .init(path: "\(directory)/traces.u32be.bin"),
            logs: .init(path: "\(directory)/logs.u32be.bin.gz", gzip: true),
            // One batch at shutdown: record boundaries do not depend on timing.
            batch: OTLPBatchConfiguration(maxQueueSize: 100_000, maxExportBatchSize: 100_000, scheduleDelaySeconds: 3600))
        // Delivery to a collector: the configuration file's `otlp` section (its spool included), with the
        // OpenTelemetry environment variables over it; the files stay as they are.
        configuration.otlp = appConfiguration.telemetry.otlp
        let (fromEnvironment, environmentWarnings) = configuration.applyingEnvironment()
        for warning in environmentWarnings
        where warning.keyPath.first.map({ $0.hasPrefix("OTEL_EXPORTER_OTLP") || $0.hasSuffix("_EXPORTER") }) == true {
            FileHandle.standardError.write(Data("otlpwire-demo: \(warning)\n".utf8))
        }
        configuration.otlp = fromEnvironment.otlp
        // One demo per directory: the lock is taken before the previous run's files are removed, so a second
        // demo on the same directory stops here and leaves the first one's files alone. Held to the end.
        let demoLock: OTLPOutputLock
        do throws(OTLPWriteError) {
            demoLock = try OTLPOutputLock(outputPath: "\(directory)/otlpwire-demo")
        } catch {
            throw DemoFailure("could not write the telemetry under \(directory): \(error)", status: .ioError)
        }
        defer { withExtendedLifetime(demoLock) {} }
        // A previous run that did not end cleanly left its journal: its files are kept (the pipeline moves them
        // aside, as traces.1.u32be.bin), since what it exported before it was killed is there and only there, and
        // the journal looks there for the spans that run handed to its exporter (so they are not written twice).
        let previousRunInterrupted = FileManager.default.fileExists(atPath: "\(directory)/\(OTLPSpanJournal.fileName)")
        for file in ["traces.u32be.bin", "logs.u32be.bin.gz"] where !previousRunInterrupted {
            let path = "\(directory)/\(file)"
            guard unlink(path) != 0 else { continue }
            let error = errno
            if error != ENOENT { throw DemoFailure("cannot replace \(path): \(String(cString: strerror(error)))", status: .ioError) }
        }
        // The replayed app's sessions (telemetry.sessions of the configuration file).
        let idGenerator: any OTLPIDGenerator = deterministic ? CountingIDGenerator() : OTLPRandomIDGenerator()
        let sessions =
            appConfiguration.sessions.enabled
            ? ReplayedSessions(configuration: appConfiguration.sessions, clock: replayClock, idGenerator: idGenerator) : nil
        defer { sessions?.removeDirectory() }
        let appProcessors = sessions.map { [$0] } ?? []
        let telemetry =
            deterministic
            ? OTLPTelemetry(
                configuration: configuration,
                resource: OTLPResource(attributes: [
                    OTLPAttribute("service.name", "otlpwire-demo"), OTLPAttribute("service.version", .string(appVersion)),
                    OTLPAttribute("telemetry.sdk.name", "otlpwire"), OTLPAttribute("telemetry.sdk.language", "swift"),
                ]),
                clock: replayClock, idGenerator: idGenerator, exporterFactory: OTLPHTTPExporterFactory(),
                spanProcessors: appProcessors, logRecordProcessors: appProcessors)
            : OTLPTelemetry(
                configuration: configuration, exporterFactory: OTLPHTTPExporterFactory(), spanProcessors: appProcessors,
                logRecordProcessors: appProcessors)
        // The open-span journal lives in the output directory (the demo's state directory): what a killed run
        // (--crash-at) started and never exported is written first, and reported.
        // A journal that cannot be opened (the directory refuses it, another process holds it) costs the crash
        // safety only: said, and the demo goes on.
        // A test fault point (the crash tests set it): the process kills itself the Nth time the journal is about
        // to hear that the file output took a batch, the moment a kill could make a batch come out twice.
        if let text = ProcessInfo.processInfo.environment["OTLPWIRE_DEMO_KILL_BEFORE_ACKNOWLEDGEMENT"], let count = Int(text) {
            nonisolated(unsafe) var seen = 0
            OTLPSpanJournal.faultPoint = { point in
                guard point == "exported" else { return }
                seen += 1
                if seen == count { kill(getpid(), SIGKILL) }
            }
        }
        do {
            Self.report(try telemetry.openSpanJournal(directory: directory))
        } catch {
            FileHandle.standardError.write(Data("otlpwire-demo: spans are not journaled: \(error)\n".utf8))
        }
        if deterministic {
            // No real cold start, no global bootstrap: nothing in the files depends on this process.
        } else if appConfiguration.isStartupEnabled {
            // 1. This process's own cold start, for real.
            let launch = AppLaunchInstrumentation(telemetry: telemetry, attributes: ["app.version": appVersion])
            launch.phase("launch.bootstrap_telemetry") {
                telemetry.bootstrap()
            }
            NotificationCenter.default.post(name: OTLPAppLifecycle.didFinishLaunching, object: nil)
            Logger(label: "demo").info("ready", metadata: ["cold_start.measured": "true"])
            NotificationCenter.default.post(name: OTLPAppLifecycle.didBecomeActive, object: nil)
        } else {
            telemetry.bootstrap()
        }

        // 2. The example app's launch scenarios, replayed.
        var app = ExampleAppLaunch(
            telemetry: telemetry, clock: replayClock, appVersion: appVersion,
            viewTracingEnabled: appConfiguration.isViewInstrumentationEnabled)
        app.sessions = sessions
        app.crashAt = crashAt
        if appConfiguration.isStartupEnabled {
            for scenario in ExampleAppLaunch.Scenario.allCases {
                replayClock.advance(milliseconds: scenario.secondsSincePreviousLaunch * 1_000)
                app.replay(scenario)
            }
        }

        telemetry.shutdown()
        if let error = sessions?.persistenceError {
            throw DemoFailure("the replayed app's session could not be kept in \(sessions?.directory ?? ""): \(error)", status: .ioError)
        }
        let snapshot = telemetry.counters.snapshot
        // The pipeline has reported each failed write on stderr (with the path and the system error).
        if snapshot.writeErrors > 0 {
            throw DemoFailure("could not write the telemetry under \(directory) (\(snapshot))", status: .ioError)
        }
        if snapshot.totalSpansDropped > 0 || snapshot.totalLogRecordsDropped > 0 {
            throw DemoFailure("telemetry was dropped (\(snapshot))", status: .dataError)
        }
        print(
            "wrote \(snapshot.spansExported) spans to \(directory)/traces.u32be.bin and \(snapshot.logRecordsExported) log records to \(directory)/logs.u32be.bin.gz"
        )
        if let otlp = configuration.otlp {
            let delivery = telemetry.deliveryCounters.snapshot
            let endpoint = otlp.resolved(for: .traces)?.redactedURL ?? otlp.resolved(for: .logs)?.redactedURL ?? otlp.redactedEndpoint
            print("delivered \(delivery.spansExported) spans and \(delivery.logRecordsExported) log records to the collector (\(endpoint))")
            if let spool = otlp.spool {
                let spans = delivery.spansReceived - delivery.spansExported - delivery.totalSpansDropped
                let logRecords = delivery.logRecordsReceived - delivery.logRecordsExported - delivery.totalLogRecordsDropped
                if spans > 0 || logRecords > 0 {
                    print(
                        "\(spans) spans and \(logRecords) log records wait in the spool \(OTLPDiagnostics.printable(spool.directory, maxCharacters: 256)) (sent at the next start, or with otlp-dump send --spool)"
                    )
                }
            }
            // The exporter has reported each refusal or failure on stderr.
            if delivery.totalSpansDropped > 0 || delivery.totalLogRecordsDropped > 0 {
                throw DemoFailure("telemetry was not delivered to the collector (\(delivery))", status: .dataError)
            }
        }
    }

    /// Says what the previous, interrupted run left: each span it never exported, as a tree, ended or
    /// interrupted (ended at its last heartbeat), with its duration.
    static func report(_ recovery: OTLPSpanJournalRecovery) {
        if let aside = recovery.setAsidePath {
            print(
                "the previous run's journal could not be read in full: \(recovery.skippedRecords) records skipped (\(recovery.skippedBytes) bytes), the file kept as \(aside)"
            )
        }
        guard !recovery.spans.isEmpty else { return }
        let interrupted = recovery.spans.filter { $0.status?.code == .error }.count
        print(
            "the previous run ended before exporting \(recovery.spans.count) spans (\(interrupted) interrupted); they are written first:")
        let ids = Set(recovery.spans.compactMap(\.spanID))
        func show(_ span: OTLPSpan, depth: Int) {
            let state = span.status?.code == .error ? "interrupted" : "ended"
            let milliseconds = String(format: "%.1f", Double(span.durationNano) / 1e6)
            print("  \(String(repeating: "  ", count: depth))\(span.name): \(state) after \(milliseconds) ms")
            for child in recovery.spans where child.parentSpanID != nil && child.parentSpanID == span.spanID {
                show(child, depth: depth + 1)
            }
        }
        for span in recovery.spans where span.parentSpanID.map({ !ids.contains($0) }) ?? true { show(span, depth: 0) }
    }
}
