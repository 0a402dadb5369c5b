import Foundation
import Testing
import OTLPTelemetry
import OTLPTesting
import OTLPWire
@testable import OTLPInstrumentation
import OTLPTestSupport

/// Scenarios driven by a test clock and a private notification center.
@Suite("App launch")
struct AppLaunchInstrumentationTests {
    /// A provider with the `OTLPAppLifecycle` notifications and a start time of the test's choosing.
    static func testProvider(
        coldLaunchStartTime: Date, preWarmFallbackThreshold: TimeInterval = 30, launchMilestones: [Notification.Name] = []
    ) -> AppLaunchProvider {
        AppLaunchProvider(
            coldLaunchStartTime: coldLaunchStartTime, preWarmFallbackThreshold: preWarmFallbackThreshold,
            coldLaunchStartName: "kp_proc.p_starttime", launchMilestones: launchMilestones)
    }

    static let processStart: UInt64 = 1_700_000_000_000_000_000

    struct Harness {
        let recorder = OTLPSpanRecorder(clock: OTLPManualClock(AppLaunchInstrumentationTests.processStart + 300_000_000))
        let center = NotificationCenter()
        let instrumentation: AppLaunchInstrumentation<OTLPTracer>

        init(threshold: TimeInterval = 30, environment: [String: String] = [:], milestones: [Notification.Name] = []) {
            let provider = AppLaunchInstrumentationTests.testProvider(
                coldLaunchStartTime: Date(timeIntervalSince1970: Double(AppLaunchInstrumentationTests.processStart) / 1e9),
                preWarmFallbackThreshold: threshold, launchMilestones: milestones)
            instrumentation = AppLaunchInstrumentation(
                provider: provider, tracer: recorder.tracer(scope: AppLaunchInstrumentation<OTLPTracer>.scope),
                notificationCenter: center, environment: environment, clock: recorder.clock)
        }

        func post(_ name: Notification.Name) { center.post(name: name, object: nil) }
        func advance(_ seconds: Double) { recorder.clock.advance(seconds: seconds) }

        func appStarts() throws -> [OTLPSpan] { try recorder.spans().map(\.span).filter { $0.name == "AppStart" } }
    }

    @Test("each return to the foreground is session activity: it keeps the session alive past the inactivity timeout")
    func foregroundKeepsTheSession() {
        let clock = OTLPManualClock()
        let sessions = OTLPSessionManager(
            configuration: .init(inactivityTimeoutSeconds: 10), clock: clock, idGenerator: OTLPSequentialIDGenerator())
        let center = NotificationCenter()
        let provider = AppLaunchInstrumentationTests.testProvider(
            coldLaunchStartTime: Date(timeIntervalSince1970: Double(clock.nowUnixNano()) / 1e9))
        let instrumentation = AppLaunchInstrumentation(
            provider: provider, tracer: OTLPSpanRecorder(clock: clock).tracer(scope: AppLaunchInstrumentation<OTLPTracer>.scope),
            notificationCenter: center, clock: clock, sessions: sessions)
        let first = sessions.currentSession.id
        for _ in 0..<5 {
            clock.advance(seconds: 8)
            center.post(name: OTLPAppLifecycle.willEnterForeground, object: nil)
        }
        #expect(sessions.recordActivity().id == first, "40 s with a foreground every 8 s: one session")
        clock.advance(seconds: 11)
        #expect(sessions.recordActivity().id != first)
        withExtendedLifetime(instrumentation) {}
    }

    static func attribute(_ span: OTLPSpan, _ key: String) -> OTLPAttributeValue? {
        span.attributes.first { $0.key == key }?.value ?? nil
    }

    @Test("fresh cold launch: process start to the first launch end, COLD, with the reference attributes and scope")
    func coldLaunch() throws {
        let harness = Harness()
        harness.advance(0.9)
        harness.post(OTLPAppLifecycle.didBecomeActive)
        let all = try harness.recorder.spans()
        let (scope, span) = try #require(all.first { $0.span.name == "AppStart" })
        #expect(scope?.name == "software.amazon.opentelemetry.AppStart")
        #expect(span.startTimeUnixNano == Self.processStart)
        #expect(span.endTimeUnixNano == Self.processStart + 1_200_000_000)
        #expect(Self.attribute(span, "launch.type") == .string("COLD"))
        #expect(Self.attribute(span, "launch_start_name") == .string("kp_proc.p_starttime"))
        #expect(Self.attribute(span, "launch_end_name") == .string("OTLPWireApplicationDidBecomeActive"))
        #expect(Self.attribute(span, "active_prewarm") == .bool(false))
        let phase = try #require(all.first { $0.span.name == "launch.process_start_to_instrumentation" }?.span)
        #expect(phase.parentSpanID == span.spanID && phase.traceID == span.traceID)
        #expect(phase.endTimeUnixNano == Self.processStart + 300_000_000)
    }

    @Test("ActivePrewarm set: PRE_WARM, active_prewarm true")
    func activePrewarm() throws {
        let harness = Harness(environment: ["ActivePrewarm": "1"])
        harness.post(OTLPAppLifecycle.didBecomeActive)
        let span = try #require(try harness.appStarts().first)
        #expect(Self.attribute(span, "launch.type") == .string("PRE_WARM"))
        #expect(Self.attribute(span, "active_prewarm") == .bool(true))
    }

    @Test("a launch longer than the threshold is PRE_WARM; threshold 0 disables that", arguments: [(30.0, "PRE_WARM"), (0.0, "COLD")])
    func threshold(threshold: Double, expected: String) throws {
        let harness = Harness(threshold: threshold)
        harness.advance(45)  // a background launch: the system started the process long before the user
        harness.post(OTLPAppLifecycle.didBecomeActive)
        #expect(Self.attribute(try #require(try harness.appStarts().first), "launch.type") == .string(expected))
    }

    @Test("no warm launch before the first background event; several warm launches after it")
    func warmLaunches() throws {
        let harness = Harness()
        harness.post(OTLPAppLifecycle.didBecomeActive)  // cold
        harness.post(OTLPAppLifecycle.willEnterForeground)  // no hidden event yet: ignored
        harness.advance(0.2)
        harness.post(OTLPAppLifecycle.didBecomeActive)
        #expect(try harness.appStarts().count == 1)

        for round in 1...3 {
            harness.advance(10)
            harness.post(OTLPAppLifecycle.didEnterBackground)
            harness.advance(60)
            harness.post(OTLPAppLifecycle.willEnterForeground)
            let start = harness.recorder.clock.nowUnixNano()
            harness.recorder.clock.advance(UInt64(150_000_000 * round))
            harness.post(OTLPAppLifecycle.didBecomeActive)
            let warm = try #require(try harness.appStarts().last)
            #expect(Self.attribute(warm, "launch.type") == .string("WARM"))
            #expect(Self.attribute(warm, "launch_start_name") == .string("OTLPWireApplicationWillEnterForeground"))
            #expect(warm.startTimeUnixNano == start)
            #expect(warm.endTimeUnixNano == start + UInt64(150_000_000 * round))
            #expect(warm.parentSpanID == nil)
        }
        #expect(try harness.appStarts().count == 4)
    }

    @Test("duplicate launch-end notifications give one cold launch")
    func duplicates() throws {
        let harness = Harness()
        for _ in 0..<5 { harness.post(OTLPAppLifecycle.didBecomeActive) }
        #expect(try harness.appStarts().count == 1)
    }

    @Test("notifications from several threads at once: one cold launch, no crash")
    func concurrent() throws {
        let harness = Harness()
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            harness.post(index % 2 == 0 ? OTLPAppLifecycle.didBecomeActive : OTLPAppLifecycle.didEnterBackground)
        }
        #expect(try harness.appStarts().count == 1)
        #expect(harness.instrumentation.isColdLaunchFinished)
    }

    @Test("launch phases: around a closure and between marks, children of the cold AppStart; none after it")
    func phases() throws {
        let harness = Harness()
        harness.instrumentation.phase("launch.settings_migration") { harness.advance(0.05) }
        harness.instrumentation.mark("auth.start")
        harness.advance(0.1)
        harness.instrumentation.mark("auth.end")
        #expect(harness.instrumentation.phase("launch.auth_routing", from: "auth.start", to: "auth.end"))
        #expect(!harness.instrumentation.phase("launch.missing", from: "nope"))
        harness.post(OTLPAppLifecycle.didBecomeActive)
        harness.instrumentation.phase("too.late") {}
        let all = try harness.recorder.spans().map(\.span)
        let cold = try #require(all.first { $0.name == "AppStart" })
        let migration = try #require(all.first { $0.name == "launch.settings_migration" })
        let auth = try #require(all.first { $0.name == "launch.auth_routing" })
        #expect(migration.parentSpanID == cold.spanID && auth.parentSpanID == cold.spanID)
        #expect(migration.durationNano == 50_000_000 && auth.durationNano == 100_000_000)
        #expect(!all.contains { $0.name == "too.late" })
    }

    @Test("platform milestones become phases: runtime ready → each milestone → launch end, first occurrence only")
    func milestones() throws {
        let sceneConnected = Notification.Name("UISceneWillConnectNotification")
        let harness = Harness(milestones: [OTLPAppLifecycle.didFinishLaunching, sceneConnected])
        harness.advance(0.1)
        harness.post(OTLPAppLifecycle.didFinishLaunching)
        harness.post(OTLPAppLifecycle.didFinishLaunching)  // again: ignored
        harness.advance(0.05)
        harness.post(sceneConnected)
        harness.advance(0.02)
        harness.post(OTLPAppLifecycle.didBecomeActive)
        let spans = try harness.recorder.spans().map(\.span)
        let cold = try #require(spans.first { $0.name == "AppStart" })
        let phases = spans.filter { $0.parentSpanID == cold.spanID && $0.name != "launch.process_start_to_instrumentation" }
        #expect(
            phases.map(\.name) == [
                "launch.runtime_ready_to_did_finish_launching", "launch.did_finish_launching_to_will_connect",
                "launch.will_connect_to_did_become_active",
            ])
        #expect(phases.map(\.durationNano) == [100_000_000, 50_000_000, 20_000_000])
        #expect(
            AppLaunchInstrumentation<OTLPTracer>.label(Notification.Name("UIApplicationDidFinishLaunchingNotification"))
                == "did_finish_launching")
    }

    @Test("the Linux provider takes the process age on the boot-time clock from /proc/PID/stat")
    func linuxProvider() throws {
        let directory = OTLPTemporaryDirectory.unusedPath("proc")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("self"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // starttime (field 22) = 250 ticks; the command name has spaces and a ')' to parse around.
        let fields = ["S"] + (4...21).map(String.init) + ["250", "0"]
        try "1234 (my (odd) app) \(fields.joined(separator: " "))".write(
            to: directory.appendingPathComponent("self/stat"), atomically: true, encoding: .utf8)
        // 250 ticks at 100 Hz: started 2.5 s after boot; the boot clock reads 10 s, so the process is 7.5 s old.
        let bootClock = OTLPManualClock(10_000_000_000)
        let wallClock = OTLPManualClock(1_700_000_010_000_000_000)
        let start = AppLaunchProvider.processStartTime(
            procRoot: directory.path, ticksPerSecond: 100, bootClock: bootClock, wallClock: wallClock)
        #expect(start == Date(timeIntervalSince1970: 1_700_000_002.5))
        #expect(AppLaunchProvider.processStartTime(procRoot: directory.path, process: "4321") == nil)
    }

    #if os(Linux)
    /// Regression: the start was `btime` (whole seconds) plus the ticks, so a process's start came out up to
    /// a second early. A child started now must come out within a tick or two of now.
    @Test("a child process started now has its start within two ticks of the spawn")
    func linuxProviderChildAge() throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["30"]
        let before = Date()
        try child.run()
        let after = Date()
        defer {
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
        }
        let start = try #require(AppLaunchProvider.processStartTime(process: String(child.processIdentifier)))
        let tick = 1 / Double(sysconf(Int32(_SC_CLK_TCK)))
        #expect(start >= before.addingTimeInterval(-2 * tick), "start \(start.timeIntervalSince(before)) s after the spawn began")
        #expect(start <= after.addingTimeInterval(2 * tick), "start \(start.timeIntervalSince(after)) s after the spawn returned")
        // This process's own start is in the past.
        let own = try #require(AppLaunchProvider.processStartTime())
        #expect(own <= Date())
    }
    #endif
}
