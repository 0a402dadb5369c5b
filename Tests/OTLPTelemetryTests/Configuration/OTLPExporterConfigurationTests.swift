import Foundation
import Testing
import OTLPWire
import Tracing
@testable import OTLPTelemetry
import OTLPTestSupport

/// The `otlp` section: decoding (every key optional, unknown keys warned, bad values naming their key path),
/// validation, and `resolved(for:)`, the one place the exporter reads.
@Suite("OTLP exporter configuration")
struct OTLPExporterConfigurationTests {
    static func load(_ json: String) throws -> (configuration: OTLPTelemetryConfiguration, warnings: [OTLPConfigurationWarning]) {
        try OTLPTelemetryConfiguration.load(json: Data(json.utf8))
    }

    static func keyPath(ofError json: String) -> String? {
        do {
            _ = try load(json)
            return nil
        } catch {
            return (error as? OTLPConfigurationError)?.keyPath
        }
    }

    @Test("no otlp section: no delivery, no separate log batching; the defaults are the specification's")
    func defaults() throws {
        let configuration = try Self.load("{}").configuration
        #expect(configuration.otlp == nil)
        #expect(configuration.logsBatch == nil)
        #expect(configuration.batch(for: .logs) == configuration.batch)
        #expect(OTLPTelemetryConfiguration.default.otlp == nil)
        let otlp = try #require(try Self.load(#"{"otlp": {}}"#).configuration.otlp)
        #expect(otlp == .default)
        #expect(otlp.endpoint == "http://localhost:4318")
        #expect(otlp.protocol == .httpProtobuf)
        #expect(otlp.compression == .gzip)
        #expect(otlp.headers.isEmpty)
        #expect(otlp.timeoutSeconds == 10)
        #expect(otlp.traces == .default && otlp.logs == .default)
        #expect(otlp.traces.enabled && otlp.traces.endpoint == nil && otlp.traces.headers == nil && otlp.traces.timeoutSeconds == nil)
        #expect(OTLPExporterConfiguration() == .default)
    }

    @Test("every key is read")
    func everyKey() throws {
        let (configuration, warnings) = try Self.load(
            """
            {"otlp": {"endpoint": "https://collector.example.com:4318/base/", "protocol": "http/json", "compression": "none",
                      "headers": {"api-key": "secret", "X-Tenant": "a b"}, "timeoutSeconds": 2.5,
                      "traces": {"enabled": false, "endpoint": "http://traces.example.com/custom", "protocol": "http/protobuf",
                                 "compression": "gzip", "headers": {"x-signal": "t"}, "timeoutSeconds": 1},
                      "logs": {"timeoutSeconds": 30}},
             "logsBatch": {"maxQueueSize": 100, "maxExportBatchSize": 10, "scheduleDelaySeconds": 1, "exportTimeoutSeconds": 5}}
            """)
        #expect(warnings.isEmpty)
        let otlp = try #require(configuration.otlp)
        #expect(
            otlp
                == OTLPExporterConfiguration(
                    endpoint: "https://collector.example.com:4318/base/", protocol: .httpJSON, compression: .none,
                    headers: ["api-key": "secret", "X-Tenant": "a b"], timeoutSeconds: 2.5,
                    traces: .init(
                        enabled: false, endpoint: "http://traces.example.com/custom", protocol: .httpProtobuf, compression: .gzip,
                        headers: ["x-signal": "t"], timeoutSeconds: 1),
                    logs: .init(timeoutSeconds: 30)))
        #expect(
            configuration.logsBatch
                == OTLPBatchConfiguration(maxQueueSize: 100, maxExportBatchSize: 10, scheduleDelaySeconds: 1, exportTimeoutSeconds: 5))
        #expect(configuration.batch(for: .logs) == configuration.logsBatch)
        #expect(configuration.batch(for: .traces) == .default)
    }

    @Test("what is encoded decodes to the same configuration, with no warning")
    func roundTrip() throws {
        var configuration = OTLPTelemetryConfiguration.default
        configuration.otlp = OTLPExporterConfiguration(
            endpoint: "http://c:4318", protocol: .httpJSON, headers: ["a": "b"],
            logs: .init(enabled: false, compression: OTLPCompression.none))
        configuration.logsBatch = OTLPBatchConfiguration(maxQueueSize: 10, maxExportBatchSize: 5)
        let json = try JSONEncoder().encode(configuration)
        let loaded = try OTLPTelemetryConfiguration.load(json: json)
        #expect(loaded.configuration == configuration)
        #expect(loaded.warnings.isEmpty)
        let plain = try OTLPTelemetryConfiguration.load(json: JSONEncoder().encode(OTLPTelemetryConfiguration.default))
        #expect(plain.configuration == .default)
    }

    @Test(
        "otlp.spool: every key read, omitted keys take the defaults, problems name their key path, each signal resolves to half in its subdirectory"
    )
    func spoolSection() throws {
        let (configuration, warnings) = try Self.load(
            """
            {"otlp": {"spool": {"directory": "/var/spool/app", "maxBytes": 1048576, "durability": "fsync", "gzip": true, "size": 1}}}
            """)
        #expect(warnings.map(\.dottedKeyPath) == ["otlp.spool.size"])
        let spool = try #require(configuration.otlp?.spool)
        #expect(spool == OTLPSpoolConfiguration(directory: "/var/spool/app", maxBytes: 1 << 20, durability: .fsync, gzip: true))
        let bare = try #require(try Self.load(#"{"otlp": {"spool": {"directory": "d"}}}"#).configuration.otlp?.spool)
        #expect(bare.maxBytes == OTLPSpoolConfiguration.default.maxBytes && bare.durability == nil && !bare.gzip)
        #expect(Self.keyPath(ofError: #"{"otlp": {"spool": {"maxBytes": 1048576}}}"#) == "otlp.spool.directory")
        #expect(Self.keyPath(ofError: #"{"otlp": {"spool": {"directory": "d", "gzip": "yes"}}}"#) == "otlp.spool.gzip")
        #expect(Self.keyPath(ofError: #"{"otlp": {"spool": {"directory": ""}}}"#) == "otlp.spool.directory")
        #expect(Self.keyPath(ofError: #"{"otlp": {"spool": {"directory": "d", "maxBytes": 1}}}"#) == "otlp.spool.maxBytes")
        #expect(Self.keyPath(ofError: #"{"otlp": {"spool": {"directory": "d", "maxBytes": 1.5}}}"#) == "otlp.spool.maxBytes")
        #expect(Self.keyPath(ofError: #"{"otlp": {"spool": {"directory": "d", "maxBytes": 1e30}}}"#) == "otlp.spool.maxBytes")
        let resolved = try #require(configuration.otlp?.resolved(for: .logs)?.spool)
        #expect(resolved == OTLPSpoolConfiguration(directory: "/var/spool/app/logs", maxBytes: 1 << 19, durability: .fsync, gzip: true))
        let encoded = try JSONEncoder().encode(spool)
        #expect(try JSONDecoder().decode(OTLPSpoolConfiguration.self, from: encoded) == spool)
    }

    @Test("unknown keys in the section and its signals are warned about with their key path")
    func unknownKeys() throws {
        let warnings = try Self.load(
            """
            {"otlp": {"endpiont": "x", "traces": {"url": "x"}, "logs": {"enabled": true, "gzip": true}, "headers": {"free": "form"}},
             "logsBatch": {"size": 1}}
            """
        ).warnings
        #expect(
            warnings == [
                .unknownKey(["logsBatch", "size"]), .unknownKey(["otlp", "endpiont"]), .unknownKey(["otlp", "logs", "gzip"]),
                .unknownKey(["otlp", "traces", "url"]),
            ])
    }

    @Test(
        "bad values are errors naming the key path",
        arguments: [
            (#"{"otlp": {"endpoint": 4318}}"#, "otlp.endpoint"),
            (#"{"otlp": {"endpoint": "localhost:4318"}}"#, "otlp.endpoint"),
            (#"{"otlp": {"endpoint": "ftp://collector"}}"#, "otlp.endpoint"),
            (#"{"otlp": {"endpoint": "http://"}}"#, "otlp.endpoint"),
            (#"{"otlp": {"endpoint": "/v1/traces"}}"#, "otlp.endpoint"),
            (#"{"otlp": {"endpoint": "http://a b"}}"#, "otlp.endpoint"),
            (#"{"otlp": {"endpoint": ""}}"#, "otlp.endpoint"),
            (#"{"otlp": {"protocol": "grpc"}}"#, "otlp.protocol"),
            (#"{"otlp": {"protocol": "HTTP/JSON"}}"#, "otlp.protocol"),
            (#"{"otlp": {"compression": "zstd"}}"#, "otlp.compression"),
            (#"{"otlp": {"compression": true}}"#, "otlp.compression"),
            (#"{"otlp": {"headers": {"a": 1}}}"#, "otlp.headers.a"),
            (#"{"otlp": {"headers": {"bad name": "v"}}}"#, "otlp.headers.<not shown: a name with spaces or a colon>"),
            (#"{"otlp": {"headers": {"": "v"}}}"#, "otlp.headers."),
            (#"{"otlp": {"headers": {"x": "a\r\nInjected: 1"}}}"#, "otlp.headers.x"),
            (#"{"otlp": {"timeoutSeconds": 0}}"#, "otlp.timeoutSeconds"),
            (#"{"otlp": {"timeoutSeconds": -1}}"#, "otlp.timeoutSeconds"),
            (#"{"otlp": {"timeoutSeconds": 1e10}}"#, "otlp.timeoutSeconds"),
            (#"{"otlp": {"timeoutSeconds": "10"}}"#, "otlp.timeoutSeconds"),
            (#"{"otlp": {"traces": {"endpoint": "collector/v1/traces"}}}"#, "otlp.traces.endpoint"),
            (#"{"otlp": {"logs": {"endpoint": "unix:///tmp/socket"}}}"#, "otlp.logs.endpoint"),
            (#"{"otlp": {"logs": {"timeoutSeconds": 0}}}"#, "otlp.logs.timeoutSeconds"),
            (#"{"otlp": {"traces": {"protocol": "grpc"}}}"#, "otlp.traces.protocol"),
            (#"{"otlp": {"traces": {"enabled": "yes"}}}"#, "otlp.traces.enabled"),
            (#"{"otlp": {"logs": {"headers": {"x\ny": "v"}}}}"#, "otlp.logs.headers.<not shown: a name with spaces or a colon>"),
            (#"{"otlp": "http://collector"}"#, "otlp"),
            (#"{"logsBatch": {"maxQueueSize": 0}}"#, "logsBatch.maxQueueSize"),
            (#"{"logsBatch": {"maxQueueSize": 10, "maxExportBatchSize": 11}}"#, "logsBatch.maxExportBatchSize"),
        ])
    func rejected(json: String, keyPath: String) {
        #expect(Self.keyPath(ofError: json) == keyPath)
    }

    @Test("grpc gets advice; other protocols and compressions list what is accepted")
    func messages() throws {
        func message(_ json: String) -> String? {
            do {
                _ = try Self.load(json)
                return nil
            } catch {
                return (error as? OTLPConfigurationError)?.message
            }
        }
        #expect(message(#"{"otlp": {"protocol": "grpc"}}"#)?.contains("grpc is not supported, use http/protobuf") == true)
        #expect(message(#"{"otlp": {"protocol": "thrift"}}"#)?.contains("must be http/protobuf or http/json") == true)
        #expect(message(#"{"otlp": {"compression": "br"}}"#)?.contains("must be gzip or none") == true)
        #expect(message(#"{"otlp": {"endpoint": "ftp://c"}}"#) == "must be an absolute http or https URL with a host, not ftp")
        #expect(
            message(#"{"logsBatch": {"maxQueueSize": 10, "maxExportBatchSize": 11}}"#)
                == "must be between 1 and 10 (logsBatch.maxQueueSize), got 11")
    }

    @Test("problems lists every otlp problem in order; clamped brings timeouts into range")
    func problemsAndClamping() {
        var configuration = OTLPTelemetryConfiguration.default
        configuration.otlp = OTLPExporterConfiguration(
            endpoint: "nope", headers: ["ok": "v", "b@d": "v"], timeoutSeconds: .nan,
            traces: .init(endpoint: "mailto:x@y", timeoutSeconds: 1e9), logs: .init(headers: ["x": "\u{0}"], timeoutSeconds: -1))
        #expect(
            configuration.problems.map(\.keyPath) == [
                "otlp.endpoint", "otlp.headers.b@d", "otlp.timeoutSeconds", "otlp.traces.endpoint", "otlp.traces.timeoutSeconds",
                "otlp.logs.headers.x", "otlp.logs.timeoutSeconds",
            ])
        let clamped = configuration.clamped.otlp!
        #expect(clamped.timeoutSeconds == 10)
        #expect(clamped.traces.timeoutSeconds == 86_400)
        #expect(clamped.logs.timeoutSeconds == 0.001)
        #expect(clamped.endpoint == "nope")
        #expect(OTLPTelemetryConfiguration.default.clamped.otlp == nil)
        #expect(OTLPTelemetryConfiguration.default.problems.isEmpty)
    }

    @Test(
        "resolved URLs: the base endpoint gets /v1/<signal>, one slash between, path and port kept",
        arguments: [
            ("http://localhost:4318", "http://localhost:4318/v1/traces", "http://localhost:4318/v1/logs"),
            ("http://localhost:4318/", "http://localhost:4318/v1/traces", "http://localhost:4318/v1/logs"),
            ("https://collector.example.com", "https://collector.example.com/v1/traces", "https://collector.example.com/v1/logs"),
            ("http://c:4318/my/collector", "http://c:4318/my/collector/v1/traces", "http://c:4318/my/collector/v1/logs"),
            ("http://c:4318/my/collector//", "http://c:4318/my/collector/v1/traces", "http://c:4318/my/collector/v1/logs"),
            ("HTTP://[::1]:4318", "HTTP://[::1]:4318/v1/traces", "HTTP://[::1]:4318/v1/logs"),
            ("http://c/p%20q?tenant=1", "http://c/p%20q/v1/traces?tenant=1", "http://c/p%20q/v1/logs?tenant=1"),
        ])
    func resolvedURLs(endpoint: String, traces: String, logs: String) throws {
        let otlp = OTLPExporterConfiguration(endpoint: endpoint)
        #expect(try #require(otlp.resolved(for: .traces)).url.absoluteString == traces)
        #expect(try #require(otlp.resolved(for: .logs)).url.absoluteString == logs)
    }

    @Test("a signal's endpoint is used exactly as given")
    func signalEndpoint() throws {
        let otlp = OTLPExporterConfiguration(
            endpoint: "http://base:4318", traces: .init(endpoint: "http://traces:9999/custom/path/"),
            logs: .init(endpoint: "https://logs.example.com"))
        #expect(otlp.resolved(for: .traces)?.url.absoluteString == "http://traces:9999/custom/path/")
        #expect(otlp.resolved(for: .logs)?.url.absoluteString == "https://logs.example.com")
    }

    @Test("resolved settings: the signal's override wins, headers merge (names without regard to case), disabled is nil")
    func resolvedSettings() throws {
        let otlp = OTLPExporterConfiguration(
            protocol: .httpJSON, compression: .gzip, headers: ["Api-Key": "base", "x-base": "1"], timeoutSeconds: 3,
            traces: .init(
                protocol: .httpProtobuf, compression: OTLPCompression.none, headers: ["api-key": "traces", "x-t": "2"], timeoutSeconds: 7),
            logs: .init(enabled: false))
        let traces = try #require(otlp.resolved(for: .traces))
        #expect(
            traces
                == OTLPExporterConfiguration.Resolved(
                    url: URL(string: "http://localhost:4318/v1/traces")!, protocol: .httpProtobuf, compression: .none,
                    headers: ["api-key": "traces", "x-base": "1", "x-t": "2"], timeoutSeconds: 7))
        #expect(otlp.resolved(for: .logs) == nil)
        var enabled = otlp
        enabled.logs.enabled = true
        let logs = try #require(enabled.resolved(for: .logs))
        #expect(logs.protocol == .httpJSON && logs.compression == .gzip && logs.timeoutSeconds == 3)
        #expect(logs.headers == ["Api-Key": "base", "x-base": "1"])
    }

    @Test("resolved clamps the timeout and is nil for an unusable endpoint")
    func resolvedEdges() {
        #expect(OTLPExporterConfiguration(timeoutSeconds: .nan).resolved(for: .traces)?.timeoutSeconds == 10)
        #expect(OTLPExporterConfiguration(timeoutSeconds: .infinity).resolved(for: .traces)?.timeoutSeconds == 86_400)
        #expect(OTLPExporterConfiguration(timeoutSeconds: 0).resolved(for: .logs)?.timeoutSeconds == 0.001)
        #expect(OTLPExporterConfiguration(endpoint: "collector:4318").resolved(for: .traces) == nil)
        #expect(OTLPExporterConfiguration(traces: .init(endpoint: "file:///x")).resolved(for: .traces) == nil)
        #expect(OTLPExporterConfiguration(traces: .init(endpoint: "file:///x")).resolved(for: .logs) != nil)
    }

    @Test(
        "ports outside 1...65535 and credentials in the URL are unusable endpoints (regression: port 65536 trapped)",
        arguments: [
            "http://127.0.0.1:65536", "https://127.0.0.1:70000", "http://127.0.0.1:99999999999999999999", "http://127.0.0.1:0",
            "http://user:pw@127.0.0.1:4318", "http://user@collector",
        ])
    func unusablePortsAndCredentials(endpoint: String) {
        let configuration = OTLPExporterConfiguration(endpoint: endpoint)
        #expect(configuration.resolved(for: .traces) == nil)
        #expect(OTLPTelemetryConfiguration(otlp: configuration).problems.contains { $0.keyPath == "otlp.endpoint" })
        #expect(OTLPExporterConfiguration(endpoint: "http://127.0.0.1:65535").resolved(for: .traces) != nil)
    }

    @Test("disabled clears both outputs and otlp, keeping the rest")
    func disabled() {
        var configuration = OTLPTelemetryConfiguration(
            service: .init(name: "s"), traces: .init(path: "t.bin"), logs: .init(path: "stdout", framing: .jsonl), otlp: .default)
        configuration = configuration.disabled
        #expect(configuration.traces.path == nil && configuration.logs.path == nil && configuration.otlp == nil)
        #expect(configuration.service.name == "s")
        #expect(configuration.logs.framing == .jsonl)
    }

    @Test("a pipeline without otlp behaves as before: the same configuration in effect, files written")
    func pipelineUnchanged() throws {
        let directory = try OTLPTemporaryDirectory.make("otlp-exporter-config")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = OTLPTelemetryConfiguration(traces: .init(path: directory.appendingPathComponent("t.bin").path))
        let telemetry = OTLPTelemetry(configuration: configuration, diagnostics: { _ in })
        #expect(telemetry.configuration == configuration.clamped)
        #expect(telemetry.configuration.otlp == nil && telemetry.configuration.logsBatch == nil)
        telemetry.tracer.startSpan("s").end()
        telemetry.shutdown()
        #expect(try Data(contentsOf: directory.appendingPathComponent("t.bin")).count > 0)
    }
}
