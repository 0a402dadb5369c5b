import Foundation
import OTLPTestSupport
import OTLPWire
import Testing

/// The demo's deterministic output, decoded by the reference opentelemetry-proto package, equals the
/// golden files (see Fixtures/README.md).
@Suite("Demo golden files")
struct DemoGoldenTests {
    static let repository = OTLPProcess.repository
    static let demo = OTLPProcess.executable("otlpwire-demo")

    static func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let result = try OTLPProcess.run(executable, arguments)
        return (result.status, result.output, result.errors)
    }

    @Test("otlpwire-demo --deterministic: byte-stable, and equal to the golden files through the reference decoder")
    func golden() throws {
        let directory = OTLPTemporaryDirectory.unusedPath("demo-golden")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try Self.run(Self.demo, ["--deterministic", directory.appendingPathComponent("a").path])
        #expect(first.status == 0, "\(first.errors)")
        let second = try Self.run(Self.demo, ["--deterministic", directory.appendingPathComponent("b").path])
        #expect(second.status == 0)
        for file in ["traces.u32be.bin", "logs.u32be.bin.gz"] {
            #expect(
                try Data(contentsOf: directory.appendingPathComponent("a/\(file)"))
                    == Data(contentsOf: directory.appendingPathComponent("b/\(file)")), "\(file) is not byte-stable")
        }
        let python = URL(fileURLWithPath: "/usr/bin/env")
        let script = Self.repository.appendingPathComponent("scripts/reference-decode.py").path
        for (file, signal) in [("traces.u32be.bin", "traces"), ("logs.u32be.bin.gz", "logs")] {
            let decoded = try Self.run(python, ["python3", script, directory.appendingPathComponent("a/\(file)").path, "u32be", signal])
            #expect(decoded.status == 0, "reference decoder: \(decoded.errors)")
            let golden = try String(
                contentsOf: Self.repository.appendingPathComponent(
                    "Tests/OTLPInstrumentationTests/Fixtures/demo-deterministic.\(signal).jsonl"), encoding: .utf8)
            #expect(decoded.output == golden, "\(signal) differ from the golden file (see Fixtures/README.md to regenerate)")
        }
    }

    /// The spans and log records of a deterministic demo run with `arguments` before the output directory.
    static func items(_ arguments: [String] = []) throws -> (spans: [OTLPSpan], records: [OTLPLogRecord]) {
        let directory = try OTLPTemporaryDirectory.make("demo-sessions")
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try OTLPProcess.run(demo, ["--deterministic"] + arguments + ["out"], in: directory)
        #expect(run.status == 0, "\(run.errors)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("out").path).sorted() == [
                "logs.u32be.bin.gz", "traces.u32be.bin",
            ])
        var spans: [OTLPSpan] = []
        var records: [OTLPLogRecord] = []
        for (file, signal) in [("traces.u32be.bin", OTLPSignal.traces), ("logs.u32be.bin.gz", .logs)] {
            let reader = try OTLPRecordReader(
                path: directory.appendingPathComponent("out/\(file)").path, options: OTLPReaderOptions(signal: signal))
            while let record = try reader.next() {
                switch record.payload {
                case .traces(let data): spans += data.resourceGroups.flatMap { $0.scopeGroups.flatMap(\.items) }
                case .logs(let data): records += data.resourceGroups.flatMap { $0.scopeGroups.flatMap(\.items) }
                case .metrics: Issue.record("the SDK wrote a metrics record")
                }
            }
        }
        return (spans, records)
    }

    static func string(_ attributes: [OTLPAttribute], _ key: String) -> String? {
        guard case .string(let value)? = attributes.first(where: { $0.key == key })?.value else { return nil }
        return value
    }

    @Test(
        "the replayed app's sessions: relaunches within the timeout continue the session, later ones start a new one naming the previous, every item carries one"
    )
    func sessions() throws {
        let (spans, records) = try Self.items()
        let string = Self.string
        #expect(spans.allSatisfy { string($0.attributes, "session.id")?.count == 32 })
        #expect(records.allSatisfy { string($0.attributes, "session.id")?.count == 32 })
        // The cold AppStart span of each scenario's process, in replay order.
        let launches = spans.filter { $0.name == "AppStart" && string($0.attributes, "launch.type") != "WARM" }
            .sorted { $0.startTimeUnixNano < $1.startTimeUnixNano }
        let session = Dictionary(
            launches.map { (string($0.attributes, "app.launch.scenario") ?? "", string($0.attributes, "session.id") ?? "") },
            uniquingKeysWith: { a, _ in a })
        let previous = Dictionary(
            launches.map { (string($0.attributes, "app.launch.scenario") ?? "", string($0.attributes, "session.previous_id")) },
            uniquingKeysWith: { a, _ in a })
        #expect(session.count == 7)
        // Five minutes later, and a warm resume after ten minutes in the background: the same session.
        #expect(session["returning_user"] == session["fresh_install"])
        let warm = spans.filter { $0.name == "AppStart" && string($0.attributes, "launch.type") == "WARM" }
        #expect(warm.count == 1 && warm.allSatisfy { string($0.attributes, "session.id") == session["fresh_install"] })
        // Two weeks later: a new session that names the previous one.
        #expect(session["expired_session"] != session["fresh_install"])
        #expect(previous["expired_session"] == session["fresh_install"])
        #expect(previous["version_upgrade"] == session["expired_session"])
        #expect(session["state_restoration"] == session["version_upgrade"])
        #expect(previous["background_launch"] == session["state_restoration"])
        #expect(session["deep_link_launch"] == session["background_launch"])
        let events = records.filter { $0.eventName.hasPrefix("session.") }.map {
            "\($0.eventName) \(string($0.attributes, "session.id") ?? "")"
        }
        let ids = [session["fresh_install"]!, session["expired_session"]!, session["version_upgrade"]!, session["background_launch"]!]
        #expect(
            events == [
                "session.start \(ids[0])", "session.end \(ids[0])", "session.start \(ids[1])", "session.end \(ids[1])",
                "session.start \(ids[2])", "session.end \(ids[2])", "session.start \(ids[3])",
            ])
    }

    @Test("telemetry.sessions.enabled false in the --config file: no item carries a session, no session event")
    func sessionsOff() throws {
        let directory = OTLPTemporaryDirectory.unusedPath("demo-sessions-off", suffix: ".json")
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(#"{"telemetry": {"sessions": {"enabled": false}}}"#.utf8).write(to: directory)
        let (spans, records) = try Self.items(["--config", directory.path])
        #expect(spans.count == 141)
        #expect(spans.allSatisfy { !$0.attributes.contains { $0.key.hasPrefix("session.") } })
        #expect(records.count == 3)
        #expect(records.allSatisfy { !$0.attributes.contains { $0.key.hasPrefix("session.") } && $0.eventName.isEmpty })
    }
}
