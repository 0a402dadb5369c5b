import Foundation
#if canImport(Glibc)
import Glibc
#endif
import OTLPInstrumentation
import OTLPTelemetry
import OTLPWire
import Tracing

/// A replay of the example app's launch flow (the forum reader of the launch-flow reference): logging
/// and settings migration, authentication-based routing (split view when logged in, login screen when
/// not), state restoration, appearance, background refresh, deep links. Each ``Scenario`` is one
/// simulated process with its own cold launch; times are simulated, so a replay takes no real time.
struct ExampleAppLaunch {
    /// The reference's launch test scenarios.
    enum Scenario: String, CaseIterable {
        case freshInstall = "fresh_install"
        case returningUser = "returning_user"
        case expiredSession = "expired_session"
        case versionUpgrade = "version_upgrade"
        case stateRestoration = "state_restoration"
        case backgroundLaunch = "background_launch"
        case deepLinkLaunch = "deep_link_launch"

        var isLoggedIn: Bool { self != .freshInstall && self != .expiredSession }

        /// How long after the previous scenario's process this one is launched, when they are replayed in
        /// order: within the session timeout the session goes on across the relaunch (returning user, state
        /// restoration, deep link); after it a new session starts that names the previous one (expired
        /// session: two weeks later, the login has expired; version upgrade; the background launch).
        var secondsSincePreviousLaunch: Double {
            switch self {
            case .freshInstall: 0
            case .returningUser: 5 * 60
            case .expiredSession: 14 * 86_400
            case .versionUpgrade: 2 * 86_400
            case .stateRestoration: 60
            case .backgroundLaunch: 3 * 3_600
            case .deepLinkLaunch: 10 * 60
            }
        }
    }

    let telemetry: OTLPTelemetry
    let clock: SimulatedClock
    let appVersion: String
    let viewTracingEnabled: Bool
    /// The replayed app's sessions, or `nil` without sessions.
    var sessions: ReplayedSessions? = nil
    /// The launch phase inside which the process kills itself (SIGKILL), the first time one runs
    /// (`--crash-at`); `nil` replays every launch.
    var crashAt: String? = nil

    /// The phases `--crash-at` accepts: those that run as a closure, so the process can die inside them.
    static let crashablePhases = [
        "launch.configure_logging", "launch.settings_migration", "launch.auth_routing", "launch.configure_appearance",
        "launch.background_refresh_setup", "launch.deep_link",
    ]

    private var viewTracer: OTLPTracer { telemetry.tracer(scope: ViewTraceTracker<OTLPTracer>.scope) }
    private var appScope: OTLPInstrumentationScope { OTLPInstrumentationScope(name: "ExampleForums.Launch", version: appVersion) }

    /// Replays one launch; returns the instrumentation (its cold launch is finished).
    @discardableResult
    func replay(_ scenario: Scenario) -> AppLaunchInstrumentation<OTLPTracer> {
        guard let sessions else { return replay(scenario, sessions: nil) }
        return sessions.process(telemetry: telemetry) { manager in replay(scenario, sessions: manager) }
    }

    private func replay(_ scenario: Scenario, sessions: OTLPSessionManager?) -> AppLaunchInstrumentation<OTLPTracer> {
        let center = NotificationCenter()  // one simulated process, its own notifications
        let processStart = clock.nowUnixNano()
        clock.advance(milliseconds: 180)  // exec, dynamic linking, runtime start, main()
        let launch = AppLaunchInstrumentation(
            telemetry: telemetry,
            provider: .replayed(coldLaunchStartTime: Date(timeIntervalSince1970: Double(processStart) / 1e9)),
            notificationCenter: center, environment: [:], clock: clock,
            attributes: ["app.launch.scenario": scenario.rawValue, "app.version": appVersion], sessions: sessions)

        phase(of: launch, "launch.configure_logging") { clock.advance(milliseconds: 3) }
        phase(of: launch, "launch.settings_migration") {
            clock.advance(milliseconds: scenario == .versionUpgrade ? 85 : 4)  // an upgrade migrates settings
        }
        if scenario == .versionUpgrade { log(.info, "settings migrated to \(appVersion)") }

        var screens: [ViewTraceTracker<OTLPTracer>] = []
        phase(of: launch, "launch.auth_routing") {
            clock.advance(milliseconds: 6)
            if scenario.isLoggedIn {
                screens.append(screen("RootViewControllerStack", attributes: ["split.display_mode": "oneBesideSecondary"]))
                screens.append(screen("RootTabBarController", attributes: ["tab.count": "5"]))
            } else {
                if scenario == .expiredSession { log(.warn, "session cookie expired; showing login") }
                screens.append(
                    screen(
                        "LoginViewController", attributes: ["login.reason": scenario == .expiredSession ? "session_expired" : "no_account"])
                )
            }
        }
        if scenario == .stateRestoration {
            launch.mark("restoration.start")
            clock.advance(milliseconds: 9)  // interface version check: "3.0" matches
            screens.append(screen("ForumsTableViewController", attributes: ["restoration.identifier": "AwfulForumsTableViewController"]))
            screens.append(
                screen("PostsPageViewController", attributes: ["restoration.identifier": "AwfulPostsPageViewController-3836742"]))
            clock.advance(milliseconds: 31)
            launch.phase("launch.state_restoration", from: "restoration.start")
        }
        phase(of: launch, "launch.configure_appearance") { clock.advance(milliseconds: 14) }
        phase(of: launch, "launch.background_refresh_setup") { clock.advance(milliseconds: 2) }
        if scenario == .deepLinkLaunch {
            phase(of: launch, "launch.deep_link") {
                clock.advance(milliseconds: 11)
                screens.append(screen("PostsPageViewController", attributes: ["deep_link.url": "awful://posts/3836742/page/2"]))
            }
        }
        center.post(name: OTLPAppLifecycle.didFinishLaunching, object: nil)  // application(_:didFinishLaunchingWithOptions:) returns
        clock.advance(milliseconds: 16)  // the first frame
        if scenario == .backgroundLaunch {
            log(.info, "launched for background refresh")
            clock.advance(milliseconds: 47_000)  // the user opens the app 47 s later: classified PRE_WARM
        }

        center.post(name: OTLPAppLifecycle.didBecomeActive, object: nil)  // launch complete
        for tracker in screens { tracker.onAppear() }
        clock.advance(milliseconds: 2_500)

        if scenario == .returningUser {
            // Background, then a warm resume.
            center.post(name: OTLPAppLifecycle.didEnterBackground, object: nil)
            clock.advance(milliseconds: 600_000)
            center.post(name: OTLPAppLifecycle.willEnterForeground, object: nil)
            clock.advance(milliseconds: 240)
            center.post(name: OTLPAppLifecycle.didBecomeActive, object: nil)
            clock.advance(milliseconds: 1_000)
        }
        for tracker in screens.reversed() { tracker.onDisappear() }
        clock.advance(milliseconds: 50)
        return launch
    }

    /// Runs `body` as the launch phase `name`; when it is the ``crashAt`` phase, the process then kills itself
    /// while the phase is still open, as a crash or a watchdog kill would.
    private func phase(of launch: AppLaunchInstrumentation<OTLPTracer>, _ name: String, _ body: () -> Void) {
        launch.phase(name) {
            body()
            if name == crashAt {
                // What the run printed so far must reach a pipe too: SIGKILL leaves stdio's buffer unwritten.
                fflush(nil)
                kill(getpid(), SIGKILL)
            }
        }
    }

    /// A screen: made now, body evaluated twice (layout, then data), appearing after launch.
    private func screen(_ name: String, attributes: [String: String]) -> ViewTraceTracker<OTLPTracer> {
        let tracker = ViewTraceTracker(
            name, viewType: "uikit", attributes: attributes, tracer: viewTracer, isEnabled: viewTracingEnabled, clock: clock)
        tracker.body { clock.advance(milliseconds: 4) }
        tracker.body { clock.advance(milliseconds: 2) }
        return tracker
    }

    private func log(_ severity: OTLPSeverity, _ message: String) {
        let now = clock.nowUnixNano()
        telemetry.logEmitter(scope: appScope).emit(
            OTLPLogRecord(
                timeUnixNano: now, observedTimeUnixNano: now, severity: severity, severityText: severity.description,
                body: .string(message)), context: nil)
    }
}
