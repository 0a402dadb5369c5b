// OTLPInstrumentation.docc/AppLaunch.md.
import Foundation
import OTLPInstrumentation
import OTLPTelemetry

func recordColdAndWarmLaunches(telemetry: OTLPTelemetry) {
    let center = NotificationCenter()  // in an app: .default, where the lifecycle is posted
    let launch = AppLaunchInstrumentation(
        telemetry: telemetry, provider: .linux(preWarmFallbackThreshold: 30), notificationCenter: center,
        attributes: ["app.build": "1234"])
    let routes = launch.phase("launch.load_routes") { ["home", "cart", "checkout"] }  // a child of the cold AppStart
    launch.mark("first_screen.start")
    let firstScreen = routes[0]
    launch.phase("launch.first_screen", from: "first_screen.start")
    center.post(name: OTLPAppLifecycle.didBecomeActive, object: nil)  // the cold launch ends: AppStart, COLD

    center.post(name: OTLPAppLifecycle.didEnterBackground, object: nil)
    center.post(name: OTLPAppLifecycle.willEnterForeground, object: nil)  // a warm launch starts…
    center.post(name: OTLPAppLifecycle.didBecomeActive, object: nil)  // …and ends: AppStart, WARM
    print(firstScreen, launch.isColdLaunchFinished)  // home true
}

func loadAppConfiguration(path: String) throws -> OTLPAppConfiguration {
    let (app, warnings) = try OTLPAppConfiguration.load(json: Data(contentsOf: URL(fileURLWithPath: path)))
    for warning in warnings { print(warning) }
    return app  // app.isStartupEnabled, app.isViewInstrumentationEnabled, app.sessions, app.telemetry
}
