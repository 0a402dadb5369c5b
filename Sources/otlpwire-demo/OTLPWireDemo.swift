import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif
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
///    traces of its screens.
/// 3. It writes traces and logs, one signal per file, under the output folder.
///
/// `--deterministic`: fixed clock, IDs and resource, and no real cold start measurement: the output files
/// are byte-stable (a golden file checks them).
///
/// `--config FILE`: an app configuration (`OTLPAppConfiguration`: the reference keys and the pipeline's);
/// `telemetry.startup.enabled` and `telemetry.isSwiftUIViewInstrumentationEnabled` switch the launch and
/// view instrumentations; the demo always writes to the output folder.
///
/// usage: otlpwire-demo [--deterministic] [--config FILE] [OUTPUT_DIRECTORY]   (default demo-output)
@main
struct OTLPWireDemo {
    static func main() throws {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let deterministic = arguments.contains("--deterministic")
        arguments.removeAll { $0 == "--deterministic" }
        var appConfiguration = OTLPAppConfiguration()
        if let index = arguments.firstIndex(of: "--config"), index + 1 < arguments.count {
            do {
                let (loaded, warnings) = try OTLPAppConfiguration.load(json: try Data(contentsOf: URL(fileURLWithPath: arguments[index + 1])))
                for warning in warnings { FileHandle.standardError.write(Data("otlpwire-demo: \(warning)\n".utf8)) }
                appConfiguration = loaded
            } catch {
                FileHandle.standardError.write(Data("otlpwire-demo: \(arguments[index + 1]): \(error)\n".utf8))
                exit(64)
            }
            arguments.removeSubrange(index...(index + 1))
        }
        let directory = arguments.first ?? "demo-output"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let appVersion = "5.13.6"

        let start: UInt64 = deterministic ? 1_750_000_000_000_000_000 : OTLPSystemClock().nowUnixNano()
        let replayClock = SimulatedClock(startUnixNano: start)
        let configuration = OTLPTelemetryConfiguration(
            service: .init(name: "otlpwire-demo", version: appVersion),
            traces: .init(path: "\(directory)/traces.u32be.bin"),
            logs: .init(path: "\(directory)/logs.u32be.bin.gz", gzip: true),
            // One batch at shutdown: record boundaries do not depend on timing.
            batch: .init(maxQueueSize: 100_000, maxExportBatchSize: 100_000, scheduleDelaySeconds: 3600))
        for file in ["traces.u32be.bin", "logs.u32be.bin.gz"] { try? FileManager.default.removeItem(atPath: "\(directory)/\(file)") }
        let telemetry: OTLPTelemetry
        if deterministic {
            telemetry = OTLPTelemetry(
                configuration: configuration,
                resource: OTLPResource(attributes: [
                    OTLPAttribute("service.name", "otlpwire-demo"), OTLPAttribute("service.version", .string(appVersion)),
                    OTLPAttribute("telemetry.sdk.name", "otlpwire"), OTLPAttribute("telemetry.sdk.language", "swift"),
                ]),
                clock: replayClock, idGenerator: CountingIDGenerator())
        } else if appConfiguration.isStartupEnabled {
            telemetry = OTLPTelemetry(configuration: configuration)
            // 1. This process's own cold start, for real.
            let launch = AppLaunchInstrumentation(telemetry: telemetry, attributes: ["app.version": appVersion])
            launch.phase("launch.bootstrap_telemetry") {
                telemetry.bootstrap()
            }
            NotificationCenter.default.post(name: OTLPAppLifecycle.didFinishLaunching, object: nil)
            Logger(label: "demo").info("ready", metadata: ["cold_start.measured": "true"])
            NotificationCenter.default.post(name: OTLPAppLifecycle.didBecomeActive, object: nil)
        } else {
            telemetry = OTLPTelemetry(configuration: configuration)
            telemetry.bootstrap()
        }

        // 2. The example app's launch scenarios, replayed.
        let app = ExampleAppLaunch(
            telemetry: telemetry, clock: replayClock, appVersion: appVersion,
            viewTracingEnabled: appConfiguration.isViewInstrumentationEnabled)
        if appConfiguration.isStartupEnabled {
            for scenario in ExampleAppLaunch.Scenario.allCases { app.replay(scenario) }
        }

        telemetry.shutdown()
        let snapshot = telemetry.counters.snapshot
        print("wrote \(snapshot.spansExported) spans to \(directory)/traces.u32be.bin and \(snapshot.logRecordsExported) log records to \(directory)/logs.u32be.bin.gz")
    }
}
