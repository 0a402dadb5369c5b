// README.md, "OTLPInstrumentation": run by the tests in a child process (it observes the default notification
// center).
import Foundation
import OTLPInstrumentation
import OTLPTelemetry

func launchAndShowHome(telemetry: OTLPTelemetry) throws {
    // At the very start of main(): the cold launch runs from process start (read from /proc on Linux).
    let launch = AppLaunchInstrumentation(telemetry: telemetry)
    let settings = try launch.phase("launch.load_settings") {  // a child span of the cold AppStart
        try Data(contentsOf: URL(fileURLWithPath: "settings.json"))
    }
    launch.mark("routing.start")
    let firstScreen = settings.isEmpty ? "Onboarding" : "HomeScreen"
    launch.phase("launch.routing", from: "routing.start")
    NotificationCenter.default.post(name: OTLPAppLifecycle.didBecomeActive, object: nil)  // "ready": ends the cold launch

    let screen = ViewTraceTracker(
        firstScreen, attributes: ["user_id": "12345"], tracer: telemetry.tracer(scope: ViewTraceTracker<OTLPTracer>.scope))
    let title = screen.body { "Welcome" }  // HomeScreen.body (the root span HomeScreen started with the tracker)
    screen.onAppear()  // HomeScreen.onAppear
    screen.onDisappear()  // HomeScreen.onDisappear; the root span ends
    print(title)
}
