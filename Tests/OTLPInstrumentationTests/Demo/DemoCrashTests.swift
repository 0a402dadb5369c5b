import Foundation
import OTLPTestSupport
import OTLPWire
import Testing

/// `otlpwire-demo --crash-at PHASE` kills itself (SIGKILL) inside a launch phase; the next run, a new process,
/// exports what the killed one started and never exported: compared span by span with a run that was not
/// killed (the same deterministic IDs and times).
@Suite("otlpwire-demo --crash-at: the interrupted launch is exported by the next run")
struct DemoCrashTests {
    static let demo = OTLPProcess.executable("otlpwire-demo")
    static let launchScope = "software.amazon.opentelemetry.AppStart"
    static let viewScope = "aws-opentelemetry-swift"

    /// Every span of a traces file, with its scope and its resource's `process.pid` (nil: the deterministic resource).
    static func spans(_ path: String) throws -> [(span: OTLPSpan, scope: String, pid: Int64?)] {
        let reader = try OTLPRecordReader(path: path, options: OTLPReaderOptions(signal: .traces))
        var found: [(OTLPSpan, String, Int64?)] = []
        while let record = try reader.next() {
            guard case .traces(let data) = record.payload else { continue }
            for group in data.resourceGroups {
                let pid = group.resource?.attributes.first { $0.key == "process.pid" }.flatMap { attribute -> Int64? in
                    if case .int(let value)? = attribute.value { return value }
                    return nil
                }
                for scopeGroup in group.scopeGroups {
                    for span in scopeGroup.items { found.append((span, scopeGroup.scope?.name ?? "", pid)) }
                }
            }
        }
        return found
    }

    static func flag(_ key: String, _ span: OTLPSpan) -> Bool {
        span.attributes.contains(OTLPAttribute(key, .bool(true)))
    }

    @Test(
        "SIGKILL inside each launch phase: the next start exports exactly the spans never exported, ended as they ended, interrupted ones at the heartbeat, none twice; then nothing",
        arguments: [
            "launch.configure_logging", "launch.settings_migration", "launch.auth_routing", "launch.configure_appearance",
            "launch.background_refresh_setup", "launch.deep_link",
        ])
    func crashInPhase(phase: String) throws {
        let directory = try OTLPTemporaryDirectory.make("demo-crash")
        defer { try? FileManager.default.removeItem(at: directory) }
        let crashed = try OTLPProcess.run(Self.demo, ["--deterministic", "--crash-at", phase, "out"], in: directory)
        #expect(crashed.status == SIGKILL, "\(crashed.errors)")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("out/open-spans.u32be.bin").path))
        let reference = try OTLPProcess.run(Self.demo, ["--deterministic", "reference"], in: directory)
        #expect(reference.status == 0, "\(reference.errors)")
        // The next start, with the same clock and IDs, and no launches of its own: what it writes is what it recovered.
        try Data(#"{ "telemetry": { "startup": { "enabled": false } } }"#.utf8).write(to: directory.appendingPathComponent("quiet.json"))
        let next = try OTLPProcess.run(Self.demo, ["--deterministic", "--config", "quiet.json", "out"], in: directory)
        #expect(next.status == 0, "\(next.errors)")
        #expect(next.output.contains("the previous run ended before exporting"), "\(next.output)")

        let recovered = try Self.spans(directory.appendingPathComponent("out/traces.u32be.bin").path)
        #expect(next.output.contains("exporting \(recovered.count) spans"), "\(next.output)")
        let clean = try Self.spans(directory.appendingPathComponent("reference/traces.u32be.bin").path)
        var cleanByID: [OTLPSpanID: OTLPSpan] = [:]
        for (span, _, _) in clean { cleanByID[span.spanID!] = span }
        let ids = recovered.compactMap(\.span.spanID)
        #expect(Set(ids).count == ids.count, "a span exported twice")

        var interruptedLaunch: [String] = []
        for (span, scope, _) in recovered {
            #expect([Self.launchScope, Self.viewScope].contains(scope), "\(span.name): only the instrumentations' spans are journaled")
            let original = try #require(cleanByID[span.spanID!], "\(span.name) is not a span of the run that was not killed")
            #expect(span.traceID == original.traceID && span.parentSpanID == original.parentSpanID && span.name == original.name)
            #expect(span.startTimeUnixNano == original.startTimeUnixNano)
            if span.status?.code == .error {
                #expect(span.status?.message == "the process ended before the span ended")
                #expect(span.endTimeUnixNano <= original.endTimeUnixNano && span.endTimeUnixNano >= span.startTimeUnixNano)
                #expect(span.attributes.contains { $0.key == "session.id" })
                if scope == Self.launchScope {
                    #expect(Self.flag("launch.interrupted", span))
                    interruptedLaunch.append(span.name)
                } else {
                    #expect(Self.flag("view.interrupted", span), "\(span.name)")
                    #expect(span.parentSpanID == nil, "only a view's root span is open across its children")
                    #expect(span.attributes.contains(OTLPAttribute("view.name", .string(span.name))))
                }
            } else {
                #expect(span == original, "\(span.name) is not as it ended")
            }
        }
        #expect(interruptedLaunch.sorted() == ["AppStart", phase].sorted())
        // Exactly: every journaled span the killed run made before its last recovered one is there (the IDs count up).
        let highest = ids.map(\.value).max() ?? 0
        let expected = clean.filter { [Self.launchScope, Self.viewScope].contains($0.scope) && $0.span.spanID!.value <= highest }
        #expect(Set(expected.map(\.span.spanID!)) == Set(ids))
        // Shut down cleanly: the journal is gone, and the run after recovers nothing.
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out/open-spans.u32be.bin").path))
        let after = try OTLPProcess.run(Self.demo, ["--deterministic", "out"], in: directory)
        #expect(after.status == 0 && !after.output.contains("previous run"), "\(after.output)")
    }

    @Test(
        "killed right after its file output wrote a batch, before the journal heard of it: the next run keeps the killed run's file (moved aside) and exports none of its spans again"
    )
    func killedBeforeTheAcknowledgement() throws {
        let directory = try OTLPTemporaryDirectory.make("demo-crash")
        defer { try? FileManager.default.removeItem(at: directory) }
        let killed = try OTLPProcess.run(
            Self.demo, ["--deterministic", "out"], in: directory, environment: ["OTLPWIRE_DEMO_KILL_BEFORE_ACKNOWLEDGEMENT": "1"])
        #expect(killed.status == SIGKILL, "\(killed.errors)")
        let written = try Self.spans(directory.appendingPathComponent("out/traces.u32be.bin").path).compactMap(\.span.spanID)
        #expect(!written.isEmpty, "the kill came after the file output's write")
        try Data(#"{ "telemetry": { "startup": { "enabled": false } } }"#.utf8).write(to: directory.appendingPathComponent("quiet.json"))
        let next = try OTLPProcess.run(Self.demo, ["--deterministic", "--config", "quiet.json", "out"], in: directory)
        #expect(next.status == 0, "\(next.errors)")
        // The killed run's file is kept (regression: it was deleted before the journal could look there, and every
        // span of its batch came out again).
        let kept = try Self.spans(directory.appendingPathComponent("out/traces.1.u32be.bin").path).compactMap(\.span.spanID)
        #expect(kept == written)
        let recovered = try Self.spans(directory.appendingPathComponent("out/traces.u32be.bin").path).compactMap(\.span.spanID)
        #expect(Set(recovered).isDisjoint(with: Set(written)), "\(Set(recovered).intersection(Set(written)).count) spans exported twice")
        #expect(!next.output.contains("the previous run ended before exporting"), "\(next.output)")
    }

    @Test("what a --crash-at run prints before its kill reaches a pipe (stdout's buffer was lost with the process)")
    func reportBeforeTheKillReachesAPipe() throws {
        let directory = try OTLPTemporaryDirectory.make("demo-crash")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try OTLPProcess.run(Self.demo, ["--deterministic", "--crash-at", "launch.auth_routing", "out"], in: directory)
        #expect(first.status == SIGKILL, "\(first.errors)")
        // The second run recovers the first's launch, reports it, then is killed in the same phase.
        let second = try OTLPProcess.run(Self.demo, ["--deterministic", "--crash-at", "launch.auth_routing", "out"], in: directory)
        #expect(second.status == SIGKILL, "\(second.errors)")
        #expect(second.output.contains("the previous run ended before exporting"), "\(second.output)")
        // What it recovered was exported at its start, before its own crash (a crash loop filled the journal
        // with recovered spans exported only at shutdown, and the newest launches were not journaled).
        let written = try Self.spans(directory.appendingPathComponent("out/traces.u32be.bin").path)
        #expect(written.contains { $0.span.status?.message == "the process ended before the span ended" }, "\(written.count) spans")
    }

    @Test("--crash-at with a phase the demo cannot crash in is a usage error that creates nothing")
    func unknownPhase() throws {
        let directory = try OTLPTemporaryDirectory.make("demo-crash")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try OTLPProcess.run(Self.demo, ["--crash-at", "launch.nowhere", "out"], in: directory)
        #expect(result.status == 64)
        #expect(result.errors.contains("launch.auth_routing"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
