import Foundation
import Testing
import OTLPTelemetry
import OTLPWire
@testable import OTLPInstrumentation
@testable import otlpwire_demo
import OTLPTestSupport

/// The launch-flow reference's test scenarios, replayed through the real pipeline into a file and read
/// back: launch type, routing screens, phases and logs per scenario.
@Suite("Example app launch scenarios")
struct ExampleAppScenarioTests {
    struct Replay {
        var spans: [OTLPSpan]
        var logs: [OTLPLogRecord]

        func attribute(_ span: OTLPSpan, _ key: String) -> OTLPAttributeValue? { span.attributes.first { $0.key == key }?.value ?? nil }
        var appStarts: [OTLPSpan] { spans.filter { $0.name == "AppStart" } }
        var cold: OTLPSpan { appStarts.first { attribute($0, "launch.type") != .string("WARM") }! }
        func children(of span: OTLPSpan) -> [String] { spans.filter { $0.parentSpanID == span.spanID }.map(\.name) }
        var screens: [String] { spans.filter { attribute($0, "view.lifecycle") == nil && attribute($0, "view.type") != nil }.map(\.name) }
    }

    static func replay(_ scenario: ExampleAppLaunch.Scenario) throws -> Replay {
        let directory = try OTLPTemporaryDirectory.make("scenario")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = SimulatedClock(startUnixNano: 1_750_000_000_000_000_000)
        let telemetry = OTLPTelemetry(
            configuration: .init(
                traces: .init(path: directory.appendingPathComponent("t.bin").path),
                logs: .init(path: directory.appendingPathComponent("l.bin").path)),
            clock: clock, idGenerator: CountingIDGenerator())
        ExampleAppLaunch(telemetry: telemetry, clock: clock, appVersion: "5.13.6", viewTracingEnabled: true).replay(scenario)
        telemetry.shutdown()
        var spans: [OTLPSpan] = []
        var logs: [OTLPLogRecord] = []
        for (file, signal) in [("t.bin", OTLPSignal.traces), ("l.bin", .logs)] {
            // A file is created with its first batch: a scenario without logs has no log file.
            guard FileManager.default.fileExists(atPath: directory.appendingPathComponent(file).path) else { continue }
            let reader = try OTLPRecordReader(path: directory.appendingPathComponent(file).path, options: OTLPReaderOptions(signal: signal))
            while let record = try reader.next() {
                switch record.payload {
                case .traces(let data): spans += data.resourceGroups.flatMap { $0.scopeGroups.flatMap(\.items) }
                case .logs(let data): logs += data.resourceGroups.flatMap { $0.scopeGroups.flatMap(\.items) }
                case .metrics: Issue.record("the SDK wrote a metrics record")
                }
            }
        }
        #expect(telemetry.counters.snapshot.totalSpansDropped == 0)
        return Replay(spans: spans, logs: logs)
    }

    @Test("fresh install: COLD, login screen (no account), no warm launch")
    func freshInstall() throws {
        let replay = try Self.replay(.freshInstall)
        #expect(replay.appStarts.count == 1)
        #expect(replay.attribute(replay.cold, "launch.type") == .string("COLD"))
        #expect(replay.attribute(replay.cold, "app.launch.scenario") == .string("fresh_install"))
        #expect(replay.screens == ["LoginViewController"])
        let login = try #require(replay.spans.first { $0.name == "LoginViewController" })
        #expect(replay.attribute(login, "login.reason") == .string("no_account"))
        #expect(
            replay.children(of: replay.cold) == [
                "launch.process_start_to_instrumentation", "launch.configure_logging", "launch.settings_migration",
                "launch.auth_routing", "launch.configure_appearance", "launch.background_refresh_setup",
                "launch.runtime_ready_to_did_finish_launching", "launch.did_finish_launching_to_did_become_active",
            ])
    }

    @Test("returning user: split view screens, then a WARM launch after backgrounding")
    func returningUser() throws {
        let replay = try Self.replay(.returningUser)
        #expect(replay.appStarts.map { replay.attribute($0, "launch.type") } == [.string("COLD"), .string("WARM")])
        let warm = try #require(replay.appStarts.last)
        #expect(warm.durationNano == 240_000_000 && warm.parentSpanID == nil)
        #expect(replay.screens.sorted() == ["RootTabBarController", "RootViewControllerStack"])
    }

    @Test("expired session: login screen with the reason, a warning log")
    func expiredSession() throws {
        let replay = try Self.replay(.expiredSession)
        let login = try #require(replay.spans.first { $0.name == "LoginViewController" })
        #expect(replay.attribute(login, "login.reason") == .string("session_expired"))
        #expect(replay.logs.map(\.severity) == [.warn])
    }

    @Test("version upgrade: the settings migration phase takes longer, and is logged")
    func versionUpgrade() throws {
        let replay = try Self.replay(.versionUpgrade)
        let migration = try #require(replay.spans.first { $0.name == "launch.settings_migration" })
        #expect(migration.durationNano == 85_000_000)
        #expect(replay.logs.first?.body == .string("settings migrated to 5.13.6"))
    }

    @Test("state restoration: a restoration phase between marks, restored screens")
    func stateRestoration() throws {
        let replay = try Self.replay(.stateRestoration)
        let restoration = try #require(replay.spans.first { $0.name == "launch.state_restoration" })
        #expect(restoration.parentSpanID == replay.cold.spanID && restoration.durationNano == 52_000_000)
        #expect(Set(replay.screens).isSuperset(of: ["ForumsTableViewController", "PostsPageViewController"]))
    }

    @Test("background launch: 47 s until active, classified PRE_WARM by the 30 s threshold")
    func backgroundLaunch() throws {
        let replay = try Self.replay(.backgroundLaunch)
        #expect(replay.attribute(replay.cold, "launch.type") == .string("PRE_WARM"))
        #expect(replay.attribute(replay.cold, "active_prewarm") == .bool(false))
        #expect(replay.cold.durationNano > 47_000_000_000)
    }

    @Test("deep link: a deep link phase opening the posts page")
    func deepLink() throws {
        let replay = try Self.replay(.deepLinkLaunch)
        #expect(replay.children(of: replay.cold).contains("launch.deep_link"))
        let posts = try #require(replay.spans.first { $0.name == "PostsPageViewController" })
        #expect(replay.attribute(posts, "deep_link.url") == .string("awful://posts/3836742/page/2"))
    }
}
