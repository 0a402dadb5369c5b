import Foundation
import OTLPTestSupport
import OTLPWire
import Testing

/// Runs every example of the documentation (Tests/DocumentationExamples) in a process of its own, in a temporary
/// directory (the examples write relative paths, as an app would), and checks that it does what the text says.
/// Collectors are the scripted test collector on loopback.
@Suite("The documentation's examples, run")
struct ExampleRunTests {
    static let executable = OTLPProcess.executable("otlp-doc-examples")
    static let fixtures = OTLPProcess.repository.appendingPathComponent("Tests/Fixtures")

    /// The examples these tests run; `otlp-doc-examples --list` must list exactly these.
    static let names: Set<String> = [
        "readme-otlpwire", "readme-otlptelemetry", "readme-otlphttp", "readme-otlpinstrumentation", "readme-otlpmetrickit",
        "readme-otlptesting", "otlpwire-landing", "getting-started", "file-formats", "reading-hostile-input", "architecture",
        "otlpwire-doc-comments",
        "otlptelemetry-landing", "configuration", "pipeline", "pipeline-hand-assembled", "file-outputs", "diagnostics",
        "bootstrap-and-shutdown", "otlpservicelifecycle-landing",
        "otlphttp-landing", "delivery", "the-spool", "app-launch", "view-tracing", "sessions", "when-the-app-crashes", "mapping",
        "otlptesting-landing",
        "recording-spans",
    ]

    /// A temporary directory the example runs in; removed by `body`'s caller.
    final class Scratch {
        let url = OTLPTemporaryDirectory.unusedPath("otlp-doc-examples")
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }

        func path(_ name: String) -> String { url.appendingPathComponent(name).path }
        func write(_ name: String, _ text: String) throws { try Data(text.utf8).write(to: url.appendingPathComponent(name)) }
        func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }

        /// Runs the example `name` here, and expects it to succeed.
        @discardableResult
        func run(_ name: String, _ arguments: [String] = [], environment: [String: String] = [:]) throws -> String {
            let result = try OTLPProcess.run(ExampleRunTests.executable, [name] + arguments, in: url, environment: environment)
            #expect(result.status == 0, "\(name) exited \(result.status): \(result.errors)")
            return result.output
        }

        /// Every request of a file here.
        func payloads(_ name: String) throws -> [OTLPPayload] {
            let reader = try OTLPRecordReader(path: path(name))
            var payloads: [OTLPPayload] = []
            while let record = try reader.next() { payloads.append(record.payload) }
            return payloads
        }

        func spans(_ name: String) throws -> [OTLPSpan] {
            try payloads(name).flatMap { payload -> [OTLPSpan] in
                guard case .traces(let data) = payload else { return [] }
                return data.resourceGroups.flatMap { $0.scopeGroups.flatMap(\.items) }
            }
        }

        func logRecords(_ name: String) throws -> [OTLPLogRecord] {
            try payloads(name).flatMap { payload -> [OTLPLogRecord] in
                guard case .logs(let data) = payload else { return [] }
                return data.resourceGroups.flatMap { $0.scopeGroups.flatMap(\.items) }
            }
        }
    }

    static func attribute(_ key: String, of attributes: [OTLPAttribute]) -> OTLPAttributeValue? {
        attributes.first { $0.key == key }?.value
    }

    @Test("the runner lists exactly the examples these tests run")
    func everyExampleIsRun() throws {
        let result = try OTLPProcess.run(Self.executable, ["--list"])
        #expect(Set(result.output.split(separator: "\n").map(String.init)) == Self.names)
    }

    // MARK: README.md

    @Test("README, OTLPWire: one span written and read back")
    func readmeOTLPWire() throws {
        let scratch = try Scratch()
        #expect(try scratch.run("readme-otlpwire") == "1\n")
        let spans = try scratch.spans("traces.u32be.bin")
        #expect(spans.map(\.name) == ["GET /cart"])
        #expect(spans.first?.status?.code == .ok)
    }

    @Test("README, OTLPTelemetry: a tool's spans and log records, each record carrying its span's context")
    func readmeOTLPTelemetry() throws {
        let scratch = try Scratch()
        try scratch.run("readme-otlptelemetry", ["8"])
        let spans = try scratch.spans("telemetry/traces.u32be.bin")
        let records = try scratch.logRecords("telemetry/logs.u32be.bin.gz")
        try #require(spans.count == 8 && records.count == 8)
        #expect(spans.allSatisfy { $0.name == "place order" && $0.kind == .internal })
        let orders = spans.compactMap { span -> Int64? in
            guard case .int(let order)? = Self.attribute("order.id", of: span.attributes) else { return nil }
            return order
        }
        #expect(orders.sorted() == Array(0..<8))
        for record in records {
            let span = try #require(spans.first { $0.spanID == record.spanID }, "a record outside every span")
            #expect(record.body == "order placed" && span.traceID == record.traceID)
            guard case .int(let order)? = Self.attribute("order.id", of: span.attributes) else { continue }
            #expect(Self.attribute("order", of: record.attributes) == .string(String(order)))
        }
    }

    @Test("README, OTLPHTTP: the span reaches the collector")
    func readmeOTLPHTTP() throws {
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let scratch = try Scratch()
        let output = try scratch.run("readme-otlphttp", [collector.endpoint])
        #expect(output.contains("spans: 1 received, 1 exported, dropped 0"))
        #expect(collector.requests.map(\.path) == ["/v1/traces"])
    }

    @Test("README, OTLPInstrumentation: a cold launch with its phases, and a view's spans")
    func readmeOTLPInstrumentation() throws {
        let scratch = try Scratch()
        try scratch.write("settings.json", "{}")
        #expect(try scratch.run("readme-otlpinstrumentation") == "Welcome\n")
        let spans = try scratch.spans("traces.u32be.bin")
        let names = Set(spans.map(\.name))
        for name in ["AppStart", "launch.load_settings", "launch.routing", "HomeScreen", "HomeScreen.body", "HomeScreen.onAppear"] {
            #expect(names.contains(name), "no \(name) in \(names.sorted())")
        }
        let appStart = spans.first { $0.name == "AppStart" }
        #expect(appStart.flatMap { Self.attribute("launch.type", of: $0.attributes) } == "COLD")
    }

    @Test("README, OTLPMetricKit: a metric payload becomes spans, a diagnostic payload a span and log records")
    func readmeOTLPMetricKit() throws {
        let scratch = try Scratch()
        let samples = Self.fixtures.appendingPathComponent("metrickit-samples")
        let output = try scratch.run(
            "readme-otlpmetrickit",
            [samples.appendingPathComponent("metric-full.json").path, samples.appendingPathComponent("diagnostic-all-kinds.json").path])
        let counts = output.split(separator: "\n").map { $0.split(separator: " ").compactMap { Int($0) } }
        try #require(counts.count == 2)
        #expect(counts[0][0] > 1 && counts[0][1] == 0)
        #expect(counts[1][0] == 1 && counts[1][1] > 0)
    }

    @Test("README, OTLPTesting: 250 ms on the manual clock, sequential IDs")
    func readmeOTLPTesting() throws {
        let scratch = try Scratch()
        #expect(try scratch.run("readme-otlptesting") == "pay 250000000 00000000000000000000000000000001 0000000000000002\n")
    }

    // MARK: OTLPWire

    @Test("OTLPWire landing page")
    func otlpWireLanding() throws {
        let scratch = try Scratch()
        #expect(try scratch.run("otlpwire-landing") == "1\n")
    }

    @Test("Getting Started: both signals written; a damaged file described up to its fault")
    func gettingStarted() throws {
        let scratch = try Scratch()
        let damaged = Self.fixtures.appendingPathComponent("vectors/bad/traces-truncated-in-body.u32be.bin").path
        let output = try scratch.run("getting-started", [damaged])
        #expect(output.contains("record 0: traces, 1 items"))
        #expect(output.contains("record 0: logs, 1 items"))
        #expect(output.contains("truncated_record") && output.contains("cut short: is it still being written?"))
        let records = try scratch.logRecords("logs.jsonl.gz")
        let spans = try scratch.spans("traces.u32be.bin")
        #expect(records.first?.traceID == spans.first?.traceID && records.first?.body == "payment accepted")
    }

    @Test("File Formats: protobuf and JSON round trips; varint records with the framing and signal given")
    func fileFormats() throws {
        let scratch = try Scratch()
        #expect(try scratch.run("file-formats") == "true\n2\n")
    }

    @Test("Reading Hostile Input: limits, explanations and the collector's answers")
    func readingHostileInput() throws {
        let scratch = try Scratch()
        let good = Self.fixtures.appendingPathComponent("vectors/framed").path
        let framed = try FileManager.default.contentsOfDirectory(atPath: good).filter { $0.hasSuffix(".u32be.bin") }.sorted()
        let deep = Self.fixtures.appendingPathComponent("vectors/bad/traces-deep-array-200.pb").path
        let truncated = Self.fixtures.appendingPathComponent("vectors/bad/traces-truncated-in-body.u32be.bin").path
        let output = try scratch.run("reading-hostile-input", [good + "/" + framed[0], deep, truncated])
        let lines = output.split(separator: "\n").map(String.init)
        try #require(lines.count == 7)
        #expect(lines[0].hasSuffix(" items"))
        #expect(lines[1].hasPrefix("over a limit: ") && lines[1].contains("nesting_too_deep"))
        #expect(lines[2].hasPrefix("cut short (still being written?): "))
        #expect(Array(lines[3...]) == ["accepted", "2 rejected: too old", "refused (400): bad span", "refused (404): not an OTLP answer"])
    }

    @Test("Architecture: one generic walk and one generic encoder for either signal")
    func architecture() throws {
        let scratch = try Scratch()
        #expect(try scratch.run("architecture") == "2 true\n")
    }

    @Test("OTLPWire's doc comments: spans written, counted and encoded; collector answers and a limit explained")
    func otlpWireDocComments() throws {
        let scratch = try Scratch()
        let output = try scratch.run("otlpwire-doc-comments")
        #expect(output == "2 true\nrejected with status 3: bad span\n1 spans rejected: too old -\ntrue\n")
    }

    // MARK: OTLPTelemetry

    @Test("OTLPTelemetry landing page: a span and a log record inside it")
    func otlpTelemetryLanding() throws {
        let scratch = try Scratch()
        try scratch.run("otlptelemetry-landing")
        let spans = try scratch.spans("traces.u32be.bin")
        let records = try scratch.logRecords("logs.u32be.bin")
        #expect(spans.map(\.name) == ["checkout"])
        #expect(records.map(\.body) == ["paid"] && records.first?.traceID == spans.first?.traceID)
    }

    @Test("Configuration: a file with an unknown key, the configuration in code, the environment")
    func configuration() throws {
        let scratch = try Scratch()
        try scratch.write("config.json", #"{ "service": { "name": "shop" }, "batch": { "maxQueueSise": 5 } }"#)
        let output = try scratch.run("configuration", ["config.json"])
        #expect(
            output.split(separator: "\n").map(String.init) == [
                "unknown configuration key batch.maxQueueSise (ignored)", "shop 2048", "0.25 1.0", "checkout",
                #"environment variable OTEL_BSP_MAX_QUEUE_SIZE (not a whole number: "lots"; ignored)"#,
            ])
    }

    @Test("Pipeline: processors, explicit instants, an event record, an error's attributes")
    func pipeline() throws {
        let scratch = try Scratch()
        try scratch.run("pipeline")
        let spans = try scratch.spans("traces.u32be.bin")
        #expect(spans.allSatisfy { Self.attribute("tenant", of: $0.attributes) == "acme" })
        let replayed = try #require(spans.first { $0.name == "replayed request" })
        #expect(replayed.startTimeUnixNano == 1_700_000_000_000_000_000 && replayed.durationNano == 500_000_000)
        let records = try scratch.logRecords("logs.u32be.bin")
        let retry = try #require(records.first { $0.eventName == "checkout.retry" })
        #expect(retry.severity == .warn && retry.timeUnixNano == 1_700_000_000_500_000_000)
        let failure = try #require(records.first { $0.body == "payment failed" })
        #expect(Self.attribute("exception.message", of: failure.attributes) == "card declined")
        #expect(Self.attribute("exception.type", of: failure.attributes).map { "\($0)".contains("PaymentDeclined") } == true)
        let signedIn = try #require(records.first { $0.body == "signed in" })
        #expect(Self.attribute("user.email", of: signedIn.attributes) == nil)
    }

    @Test("Pipeline: a tracer put together by hand over a stream exporter")
    func pipelineHandAssembled() throws {
        let scratch = try Scratch()
        #expect(try scratch.run("pipeline-hand-assembled").hasPrefix("spans: 1 received, 1 exported, dropped 0;"))
        #expect(try scratch.spans("traces.u32be.bin").map(\.name) == ["GET /cart"])
    }

    @Test("File Outputs: a gzip file with rotation and fsync, no open error")
    func fileOutputs() throws {
        let scratch = try Scratch()
        #expect(try scratch.run("file-outputs") == "")
        #expect(try scratch.spans("traces.u32be.bin.gz").map(\.name) == ["GET /cart"])
    }

    @Test("Diagnostics: a clamped value, an output that cannot open, the drop reported")
    func diagnostics() throws {
        let scratch = try Scratch()
        let output = try scratch.run("diagnostics")
        #expect(output.hasPrefix("[write_failed: 1]\n"))
        #expect(output.contains("OTLPWire telemetry: configuration key batch.maxQueueSize: must be between 1 and 1048576, got 0"))
        #expect(output.contains("OTLPWire telemetry: write failed: cannot inspect /dev/null/traces.u32be.bin: Not a directory"))
        #expect(output.contains("OTLPWire telemetry dropped data: spans: 1 received, 0 exported, dropped 1 write_failed"))
    }

    @Test("Bootstrap and Shutdown: swift-log bootstrapped by the program, the tracer alone; lines and records carry the trace")
    func bootstrapAndShutdown() throws {
        let scratch = try Scratch()
        let output = try scratch.run("bootstrap-and-shutdown")
        let spans = try scratch.spans("traces.u32be.bin")
        let records = try scratch.logRecords("logs.u32be.bin")
        let span = try #require(spans.first)
        let (traceID, spanID) = (try #require(span.traceID), try #require(span.spanID))
        let line = try #require(output.split(separator: "\n").first { $0.hasSuffix("paid") }, "\(output)")
        #expect(line.contains(" info cart: ") && line.contains("span_id=\(spanID.hex) trace_id=\(traceID.hex)"), "\(line)")
        #expect(records.map(\.body) == ["paid"] && records.first?.traceID == traceID && records.first?.spanID == spanID)
    }

    // MARK: OTLPServiceLifecycle

    @Test("OTLPServiceLifecycle landing page: the work ends, the group shuts down, the telemetry has exported every span")
    func otlpServiceLifecycleLanding() throws {
        let scratch = try Scratch()
        try scratch.run("otlpservicelifecycle-landing")
        #expect(try scratch.spans("traces.u32be.bin").map(\.name) == (0..<100).map { "order \($0)" })
    }

    // MARK: OTLPHTTP

    @Test("OTLPHTTP landing page: the endpoint from OTEL_EXPORTER_OTLP_ENDPOINT")
    func otlpHTTPLanding() throws {
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let scratch = try Scratch()
        let output = try scratch.run("otlphttp-landing", environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint])
        #expect(output.contains("spans: 1 received, 1 exported, dropped 0"))
        #expect(collector.requests.map(\.path) == ["/v1/traces"])
    }

    @Test("Delivery: JSON without compression, a header, logs off; then a hand-assembled exporter")
    func delivery() throws {
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let scratch = try Scratch()
        let output = try scratch.run("delivery", [collector.endpoint])
        #expect(output.split(separator: "\n").allSatisfy { $0.hasPrefix("spans: 1 received, 1 exported, dropped 0;") })
        let requests = collector.requests
        try #require(requests.count == 2)
        #expect(requests.map(\.path) == ["/v1/traces", "/v1/traces"])
        #expect(requests[0].headers["content-type"] == "application/json" && requests[0].headers["api-key"] == "secret")
        #expect(requests[0].headers["content-encoding"] == nil)
        #expect(requests[1].headers["content-type"] == "application/x-protobuf" && requests[1].headers["content-encoding"] == "gzip")
    }

    @Test("The Spool: kept while nothing listens, delivered by the next run")
    func theSpool() throws {
        let scratch = try Scratch()
        let nothing = "http://127.0.0.1:\(try OTLPFreePort.unused())"
        #expect(try scratch.run("the-spool", [nothing]).hasPrefix("spans: 1 received, 0 exported, dropped 0;"))
        let spooled = try FileManager.default.contentsOfDirectory(atPath: scratch.path("spool/traces"))
        #expect(spooled.contains { $0.hasSuffix(".u32be.bin") })

        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        #expect(try scratch.run("the-spool", [collector.endpoint]).hasPrefix("spans: 2 received, 2 exported, dropped 0;"))
        #expect(collector.requests.allSatisfy { $0.path == "/v1/traces" } && collector.items.count == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("spool/traces")).allSatisfy { !$0.hasSuffix(".bin") })
    }

    // MARK: OTLPInstrumentation

    @Test("App Launch: a cold launch with phases, then a warm one")
    func appLaunch() throws {
        let scratch = try Scratch()
        try scratch.write("app.json", #"{ "telemetry": { "startup": { "enabled": true } }, "traces": { "path": "traces.u32be.bin" } }"#)
        #expect(try scratch.run("app-launch", ["app.json"]) == "home true\n")
        let spans = try scratch.spans("traces.u32be.bin")
        let launches = spans.filter { $0.name == "AppStart" }.compactMap { Self.attribute("launch.type", of: $0.attributes) }
        #expect(launches == ["COLD", "WARM"])
        #expect(spans.filter { $0.name == "AppStart" }.allSatisfy { Self.attribute("app.build", of: $0.attributes) == "1234" })
        #expect(Set(spans.map(\.name)).isSuperset(of: ["launch.load_routes", "launch.first_screen"]))
    }

    @Test("View Tracing: two body evaluations traced; nothing when disabled")
    func viewTracing() throws {
        let scratch = try Scratch()
        #expect(try scratch.run("view-tracing") == "3\n3\n2 0\n")
        let names = try scratch.spans("traces.u32be.bin").map(\.name).sorted()
        #expect(names == ["CartScreen", "CartScreen.body", "CartScreen.body", "CartScreen.onAppear", "CartScreen.onDisappear"])
    }

    @Test("Sessions: the session on spans and records, and its start event")
    func sessions() throws {
        let scratch = try Scratch()
        try scratch.write(
            "app.json",
            #"{ "telemetry": { "sessions": { "inactivityTimeoutSeconds": 60 } }, "traces": { "path": "traces.u32be.bin" }, "logs": { "path": "logs.u32be.bin" } }"#
        )
        let id = try scratch.run("sessions", ["app.json"]).trimmingCharacters(in: .newlines)
        #expect(id.count == 32)
        let spans = try scratch.spans("traces.u32be.bin")
        let records = try scratch.logRecords("logs.u32be.bin")
        #expect(spans.map { Self.attribute("session.id", of: $0.attributes) } == [.string(id)])
        #expect(records.allSatisfy { Self.attribute("session.id", of: $0.attributes) == .string(id) })
        #expect(records.contains { $0.eventName == "session.start" })
        #expect(scratch.exists("sessions/session"))
    }

    @Test("When the App Crashes: a launch killed inside a phase is exported by the next start, interrupted; then nothing")
    func whenTheAppCrashes() throws {
        let scratch = try Scratch()
        let crashed = try OTLPProcess.run(ExampleRunTests.executable, ["when-the-app-crashes", "crash"], in: scratch.url)
        #expect(crashed.status == SIGKILL, "\(crashed.errors)")
        #expect(try scratch.run("when-the-app-crashes") == "recovered 3 spans of the previous run\n")
        let spans = try scratch.spans("traces.u32be.bin")
        let interrupted = spans.filter { $0.status?.code == .error }
        #expect(interrupted.map(\.name).sorted() == ["AppStart", "launch.load"])
        #expect(interrupted.allSatisfy { $0.attributes.contains(OTLPAttribute("launch.interrupted", .bool(true))) })
        #expect(interrupted.allSatisfy { Self.attribute("session.id", of: $0.attributes) != nil })
        #expect(try scratch.run("when-the-app-crashes") == "recovered 0 spans of the previous run\n")
        #expect(!scratch.exists("state/open-spans.u32be.bin"))
    }

    // MARK: OTLPMetricKit

    @Test("Mapping: both payload kinds converted and written")
    func mapping() throws {
        let scratch = try Scratch()
        let samples = Self.fixtures.appendingPathComponent("metrickit-samples")
        let output = try scratch.run(
            "mapping",
            [samples.appendingPathComponent("metric-full.json").path, samples.appendingPathComponent("diagnostic-all-kinds.json").path])
        let counts = output.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int($0) }
        try #require(counts.count == 2)
        #expect(try scratch.spans("metrickit.u32be.bin").count == counts[0])
        #expect(try scratch.logRecords("diagnostics.u32be.bin").count == counts[1])
    }

    // MARK: OTLPTesting

    @Test("OTLPTesting landing page")
    func otlpTestingLanding() throws {
        let scratch = try Scratch()
        #expect(try scratch.run("otlptesting-landing") == "checkout pay 250000000\n")
    }

    @Test("Recording Spans: a view's spans in a test; deterministic IDs in a file")
    func recordingSpans() throws {
        let scratch = try Scratch()
        #expect(
            try scratch.run("recording-spans") == "Cart\nCartScreen.body,CartScreen.onAppear,CartScreen.onDisappear,CartScreen\n")
        let spans = try scratch.spans("traces.u32be.bin")
        #expect(spans.map(\.traceID) == [OTLPTraceID(high: 0, low: 1)])
    }
}
