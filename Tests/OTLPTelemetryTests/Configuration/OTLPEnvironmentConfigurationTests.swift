import Foundation
import Testing
import OTLPWire
@testable import OTLPTelemetry

/// `applyingEnvironment(_:)`: every OpenTelemetry SDK variable parsed and applied over the code/file
/// configuration; malformed values ignored with a warning naming the variable; nothing traps.
@Suite("Environment configuration")
struct OTLPEnvironmentConfigurationTests {
    typealias Configuration = OTLPTelemetryConfiguration

    static func apply(
        _ environment: [String: String], to configuration: Configuration = .default
    ) -> (configuration: Configuration, warnings: [OTLPConfigurationWarning]) {
        configuration.applyingEnvironment(environment)
    }

    /// The variables warned about, in order.
    static func warned(_ warnings: [OTLPConfigurationWarning]) -> [String] {
        warnings.map { $0.keyPath.joined() }
    }

    @Test("no variable: the configuration is unchanged, no warning")
    func empty() {
        var configuration = Configuration(service: .init(name: "n", attributes: ["a": "b"]), traces: .init(path: "t.bin"), otlp: .default)
        configuration.sampling.ratio = 0.5
        let result = Self.apply([:], to: configuration)
        #expect(result.configuration == configuration)
        #expect(result.warnings.isEmpty)
        #expect(Self.apply(["PATH": "/bin", "HOME": "/root", "OTEL_UNKNOWN_THING": "1"]).configuration == .default)
    }

    @Test("empty and blank values count as unset")
    func emptyValues() {
        let names = [
            "OTEL_SDK_DISABLED", "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_TRACES_EXPORTER", "OTEL_LOGS_EXPORTER",
            "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_LOGS_HEADERS",
            "OTEL_EXPORTER_OTLP_TIMEOUT",
            "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG",
            "OTEL_BSP_SCHEDULE_DELAY", "OTEL_BLRP_MAX_QUEUE_SIZE", "OTEL_ATTRIBUTE_COUNT_LIMIT", "OTEL_SPAN_LINK_COUNT_LIMIT",
        ]
        for value in ["", "  ", "\t\n"] {
            let result = Self.apply(Dictionary(uniqueKeysWithValues: names.map { ($0, value) }))
            #expect(result.configuration == .default)
            #expect(result.warnings.isEmpty)
        }
    }

    // MARK: General

    @Test("OTEL_SDK_DISABLED=true (any case) clears both outputs and otlp; false keeps them; others warn and mean false")
    func sdkDisabled() {
        let configuration = Configuration(traces: .init(path: "t.bin"), logs: .init(path: "l.bin"), otlp: .default)
        for value in ["true", "TRUE", "True"] {
            let result = Self.apply(
                ["OTEL_SDK_DISABLED": value, "OTEL_TRACES_EXPORTER": "console", "OTEL_SERVICE_NAME": "kept"], to: configuration)
            #expect(result.configuration.traces.path == nil && result.configuration.logs.path == nil && result.configuration.otlp == nil)
            #expect(result.configuration.service.name == "kept")
            #expect(result.warnings.isEmpty)
        }
        let disabledFalse = Self.apply(["OTEL_SDK_DISABLED": "false"], to: configuration)
        #expect(disabledFalse.configuration == configuration && disabledFalse.warnings.isEmpty)
        for value in ["1", "yes", "on", "truee", "ｔrue"] {
            let result = Self.apply(["OTEL_SDK_DISABLED": value], to: configuration)
            #expect(result.configuration == configuration)
            #expect(
                result.warnings.map(\.description) == [
                    "environment variable OTEL_SDK_DISABLED (not true or false: \"\(value)\"; treated as false)"
                ])
        }
    }

    @Test("OTEL_SERVICE_NAME sets the name, winning over the configuration and OTEL_RESOURCE_ATTRIBUTES")
    func serviceName() {
        let result = Self.apply(
            ["OTEL_SERVICE_NAME": "checkout", "OTEL_RESOURCE_ATTRIBUTES": "service.name=other,service.version=2.0"],
            to: Configuration(service: .init(name: "from-file")))
        #expect(result.configuration.service.name == "checkout")
        #expect(result.configuration.service.version == "2.0")
        #expect(result.configuration.service.attributes.isEmpty)
        #expect(result.warnings.isEmpty)
    }

    @Test("OTEL_RESOURCE_ATTRIBUTES: trimmed, percent-decoded keys and values; the configuration's own keys win")
    func resourceAttributes() {
        let result = Self.apply(
            [
                "OTEL_RESOURCE_ATTRIBUTES":
                    " deployment.environment = prod , team=a%2Cb%3Dc,emoji=%F0%9F%90%A6, bad.utf8=%FF, k%3D=v ,,trailing=1,"
            ],
            to: Configuration(service: .init(version: "1.0", attributes: ["team": "file"])))
        #expect(result.warnings.isEmpty)
        #expect(
            result.configuration.service.attributes == [
                "deployment.environment": "prod", "team": "file", "emoji": "🐦", "bad.utf8": "\u{FFFD}", "k=": "v", "trailing": "1",
            ])
        #expect(result.configuration.service.version == "1.0")
        #expect(Self.apply(["OTEL_RESOURCE_ATTRIBUTES": "service.name=svc"]).configuration.service.name == "svc")
        #expect(
            Self.apply(["OTEL_RESOURCE_ATTRIBUTES": "service.name=svc"], to: .init(service: .init(name: "file"))).configuration.service.name
                == "file")
    }

    @Test(
        "a malformed OTEL_RESOURCE_ATTRIBUTES is discarded whole, with a warning saying which entries",
        arguments: [
            ("a=1,novalue,b=2", "entry 2: no \"=\""),
            ("a=1,=2", "entry 2: an empty key"),
            ("a=%ZZ", "entry 1: a \"%\" not followed by two hexadecimal digits"),
            ("a=%4", "entry 1: a \"%\" not followed by two hexadecimal digits"),
            ("a=100%", "entry 1: a \"%\" not followed by two hexadecimal digits"),
            ("=", "entry 1: an empty key"),
            ("ключ", "entry 1: no \"=\""),
        ])
    func resourceAttributesMalformed(value: String, reason: String) {
        let result = Self.apply(["OTEL_RESOURCE_ATTRIBUTES": value])
        #expect(result.configuration == .default)
        #expect(
            result.warnings == [.environmentVariable("OTEL_RESOURCE_ATTRIBUTES", "malformed (\(reason)); the whole variable is ignored")])
    }

    @Test("OTEL_RESOURCE_ATTRIBUTES with more entries than a service may have is discarded")
    func resourceAttributesTooMany() {
        let value = (0...Configuration.Service.maxAttributes).map { "k\($0)=v" }.joined(separator: ",")
        let result = Self.apply(["OTEL_RESOURCE_ATTRIBUTES": value])
        #expect(result.configuration.service.attributes.isEmpty)
        #expect(Self.warned(result.warnings) == ["OTEL_RESOURCE_ATTRIBUTES"])
    }

    // MARK: Exporter selection

    @Test("OTEL_TRACES_EXPORTER / OTEL_LOGS_EXPORTER=otlp: delivery made with the defaults, only for that signal")
    func exporterOTLP() throws {
        let traces = Self.apply(["OTEL_TRACES_EXPORTER": "otlp"])
        let otlp = try #require(traces.configuration.otlp)
        #expect(otlp.traces.enabled && !otlp.logs.enabled)
        #expect(otlp.resolved(for: .traces)?.url.absoluteString == "http://localhost:4318/v1/traces")
        #expect(otlp.resolved(for: .logs) == nil)
        #expect(traces.warnings.isEmpty)
        let both = try #require(Self.apply(["OTEL_TRACES_EXPORTER": "otlp", "OTEL_LOGS_EXPORTER": "OTLP"]).configuration.otlp)
        #expect(both == .default)
    }

    @Test("console is the stdout JSON lines output; none exports nowhere; a list may hold several")
    func exporterConsoleAndNone() throws {
        let file = Configuration(traces: .init(path: "t.bin", gzip: true), logs: .init(path: "l.bin"), otlp: .default)
        let console = Self.apply(["OTEL_TRACES_EXPORTER": "console", "OTEL_LOGS_EXPORTER": " otlp , console "], to: file)
        #expect(console.configuration.traces == .init(path: "stdout", framing: .jsonl, gzip: false))
        #expect(console.configuration.logs == .init(path: "stdout", framing: .jsonl, gzip: false))
        #expect(console.configuration.otlp?.traces.enabled == false && console.configuration.otlp?.logs.enabled == true)
        #expect(console.configuration.problems.isEmpty)
        #expect(console.warnings.isEmpty)
        let none = Self.apply(["OTEL_TRACES_EXPORTER": "none"], to: file)
        #expect(none.configuration.traces.path == nil)
        #expect(none.configuration.otlp?.traces.enabled == false)
        #expect(none.configuration.logs == file.logs && none.configuration.otlp?.logs.enabled == true)
        let otlpOnly = Self.apply(["OTEL_LOGS_EXPORTER": "otlp"], to: file)
        #expect(otlpOnly.configuration.logs.path == "l.bin")
        let nothing = Self.apply(["OTEL_TRACES_EXPORTER": "none", "OTEL_LOGS_EXPORTER": "none"], to: file)
        #expect(nothing.configuration.otlp?.resolved(for: .traces) == nil && nothing.configuration.otlp?.resolved(for: .logs) == nil)
        #expect(Self.apply(["OTEL_TRACES_EXPORTER": "none"]).configuration == .default)
    }

    @Test("unknown exporters are warned about and the others applied; none with others is ignored")
    func exporterUnknown() throws {
        let result = Self.apply(["OTEL_TRACES_EXPORTER": "zipkin,otlp,otlp,logging", "OTEL_LOGS_EXPORTER": "none,console,otlp/stdout"])
        #expect(
            result.warnings.map(\.description) == [
                "environment variable OTEL_TRACES_EXPORTER (exporter \"zipkin\" is not supported (otlp, console or none); it is ignored)",
                "environment variable OTEL_TRACES_EXPORTER (exporter \"logging\" is deprecated, use console; it is ignored)",
                "environment variable OTEL_LOGS_EXPORTER (exporter \"otlp/stdout\" is not supported (otlp, console or none); it is ignored)",
                "environment variable OTEL_LOGS_EXPORTER (none cannot be combined with other exporters; none is ignored)",
            ])
        #expect(result.configuration.otlp?.traces.enabled == true && result.configuration.otlp?.logs.enabled == false)
        #expect(result.configuration.logs.path == "stdout")
        let onlyUnknown = Self.apply(["OTEL_TRACES_EXPORTER": "jaeger"], to: .init(traces: .init(path: "t.bin")))
        #expect(onlyUnknown.configuration == .init(traces: .init(path: "t.bin")))
        #expect(Self.warned(onlyUnknown.warnings) == ["OTEL_TRACES_EXPORTER"])
        #expect(Self.apply(["OTEL_LOGS_EXPORTER": ",,"]).configuration == .default)
    }

    // MARK: OTLP exporter

    @Test("OTEL_EXPORTER_OTLP_ENDPOINT makes otlp for both signals, keeping file outputs")
    func endpoint() throws {
        let file = Configuration(traces: .init(path: "t.bin"))
        let result = Self.apply(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318/"], to: file)
        #expect(result.warnings.isEmpty)
        #expect(result.configuration.traces.path == "t.bin")
        let otlp = try #require(result.configuration.otlp)
        #expect(otlp.endpoint == "http://127.0.0.1:4318/")
        #expect(otlp.resolved(for: .traces)?.url.absoluteString == "http://127.0.0.1:4318/v1/traces")
        #expect(otlp.resolved(for: .logs)?.url.absoluteString == "http://127.0.0.1:4318/v1/logs")
    }

    @Test("signal endpoints are used as given and, without other OTLP variables, deliver only their signal")
    func signalEndpoints() throws {
        let traces = try #require(Self.apply(["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t:1/x"]).configuration.otlp)
        #expect(traces.resolved(for: .traces)?.url.absoluteString == "http://t:1/x")
        #expect(traces.resolved(for: .logs) == nil)
        let logs = try #require(Self.apply(["OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "https://l/v1/logs"]).configuration.otlp)
        #expect(logs.resolved(for: .logs)?.url.absoluteString == "https://l/v1/logs")
        #expect(logs.resolved(for: .traces) == nil)
        let all = try #require(
            Self.apply([
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://base", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "http://logs/in",
            ]).configuration.otlp)
        #expect(all.resolved(for: .traces)?.url.absoluteString == "http://base/v1/traces")
        #expect(all.resolved(for: .logs)?.url.absoluteString == "http://logs/in")
        // A configured otlp keeps its own choice of signals.
        let configured = Configuration(otlp: .init(logs: .init(enabled: false)))
        let applied = try #require(Self.apply(["OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "http://l"], to: configured).configuration.otlp)
        #expect(applied.logs == .init(enabled: false, endpoint: "http://l"))
        #expect(applied.traces.enabled)
    }

    @Test(
        "bad endpoints are warned about and ignored",
        arguments: [
            "localhost:4318", "ftp://c", "http://", "not a url", "/v1/traces", "http://a b", "💥://x", "grpc://c:4317",
        ])
    func badEndpoint(value: String) {
        for name in ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"] {
            let result = Self.apply([name: value], to: .init(otlp: .default))
            #expect(result.configuration.otlp == .default)
            #expect(Self.warned(result.warnings) == [name])
            #expect(result.warnings.first?.message.hasSuffix("; ignored") == true)
            #expect(Self.apply([name: value]).configuration.otlp == nil)
        }
    }

    @Test("headers: k=v lists, percent-decoded, merged over the configured ones; signal headers over the base")
    func headers() throws {
        let configured = Configuration(otlp: .init(headers: ["Api-Key": "file", "x-keep": "1"]))
        let result = Self.apply(
            [
                "OTEL_EXPORTER_OTLP_HEADERS": "api-key=env%20key, x-tenant = t1 ,x-eq=a=b",
                "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "x-tenant=traces",
                "OTEL_EXPORTER_OTLP_LOGS_HEADERS": "authorization=Basic%20dXNlcjpwYXNz",
            ], to: configured)
        #expect(result.warnings.isEmpty)
        let otlp = try #require(result.configuration.otlp)
        #expect(otlp.headers == ["api-key": "env key", "x-keep": "1", "x-tenant": "t1", "x-eq": "a=b"])
        #expect(otlp.resolved(for: .traces)?.headers == ["api-key": "env key", "x-keep": "1", "x-tenant": "traces", "x-eq": "a=b"])
        #expect(otlp.resolved(for: .logs)?.headers["authorization"] == "Basic dXNlcjpwYXNz")
    }

    @Test("bad header entries are warned about without their value and left out; the others apply")
    func badHeaders() throws {
        let result = Self.apply([
            "OTEL_EXPORTER_OTLP_HEADERS": "ok=1,novalue,=v,bad name=secret1,x=line%0D%0AInjected: secret2,y=%G1,z=tab%09ok"
        ])
        let otlp = try #require(result.configuration.otlp)
        #expect(otlp.headers == ["ok": "1", "z": "tab\tok"])
        #expect(Set(Self.warned(result.warnings)) == ["OTEL_EXPORTER_OTLP_HEADERS"])
        #expect(result.warnings.count == 5)
        #expect(!result.warnings.contains { $0.description.contains("secret") })
        let nothingValid = Self.apply(["OTEL_EXPORTER_OTLP_LOGS_HEADERS": "a"])
        #expect(nothingValid.configuration.otlp == nil)
        #expect(
            nothingValid.warnings == [.environmentVariable("OTEL_EXPORTER_OTLP_LOGS_HEADERS", "entry 1: no \"=\"; that entry is ignored")])
    }

    @Test("compression, timeout (milliseconds) and protocol, base and per signal")
    func otlpSettings() throws {
        let result = Self.apply([
            "OTEL_EXPORTER_OTLP_COMPRESSION": "none", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "GZIP",
            "OTEL_EXPORTER_OTLP_TIMEOUT": "2500", "OTEL_EXPORTER_OTLP_LOGS_TIMEOUT": "0",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json", "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL": "http/protobuf",
        ])
        #expect(result.warnings.isEmpty)
        let otlp = try #require(result.configuration.otlp)
        #expect(otlp.compression == .none && otlp.traces.compression == .gzip && otlp.logs.compression == nil)
        #expect(otlp.timeoutSeconds == 2.5)
        #expect(otlp.logs.timeoutSeconds == OTLPExporterConfiguration.timeoutSecondsRange.upperBound)  // 0: no limit
        #expect(otlp.protocol == .httpJSON && otlp.logs.protocol == .httpProtobuf)
        let traces = try #require(otlp.resolved(for: .traces))
        #expect(traces.compression == .gzip && traces.timeoutSeconds == 2.5 && traces.protocol == .httpJSON)
        let logs = try #require(otlp.resolved(for: .logs))
        #expect(logs.compression == .none && logs.timeoutSeconds == 86_400 && logs.protocol == .httpProtobuf)
        #expect(Self.apply(["OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "1"]).configuration.otlp?.traces.timeoutSeconds == 0.001)
    }

    @Test("grpc is refused with advice and ignored")
    func grpc() {
        for name in ["OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL"] {
            let result = Self.apply([name: "grpc"], to: .init(otlp: .default))
            #expect(result.configuration.otlp == .default)
            #expect(result.warnings == [.environmentVariable(name, "grpc is not supported, use http/protobuf; ignored")])
        }
    }

    @Test(
        "malformed OTLP settings are warned about and ignored",
        arguments: [
            ("OTEL_EXPORTER_OTLP_COMPRESSION", "zstd"), ("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "deflate"),
            ("OTEL_EXPORTER_OTLP_LOGS_COMPRESSION", "1"), ("OTEL_EXPORTER_OTLP_PROTOCOL", "http"),
            ("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "http/thrift"), ("OTEL_EXPORTER_OTLP_TIMEOUT", "10s"),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "-1"), ("OTEL_EXPORTER_OTLP_TIMEOUT", "1.5"), ("OTEL_EXPORTER_OTLP_TIMEOUT", "NaN"),
            ("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "99999999999999999999999"), ("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "86400001"),
            ("OTEL_EXPORTER_OTLP_LOGS_TIMEOUT", "１０"), ("OTEL_EXPORTER_OTLP_LOGS_TIMEOUT", "+"),
            ("OTEL_EXPORTER_OTLP_LOGS_TIMEOUT", "0x10"),
        ])
    func badOTLPSettings(name: String, value: String) {
        let result = Self.apply([name: value])
        #expect(result.configuration == .default)
        #expect(Self.warned(result.warnings) == [name])
        #expect(result.warnings.first?.message.hasSuffix("ignored") == true)
    }

    @Test(
        "the TLS variables set the TLS files, a signal's own over the base ones; INSECURE (gRPC only) is warned about; alone they make no otlp"
    )
    func tlsVariables() throws {
        let environment = [
            "OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector:4318",
            "OTEL_EXPORTER_OTLP_CERTIFICATE": "/etc/otel/ca.pem", "OTEL_EXPORTER_OTLP_CLIENT_KEY": "/etc/otel/client.key",
            "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": "/etc/otel/client.pem",
            "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE": "/etc/otel/traces-ca.pem",
            "OTEL_EXPORTER_OTLP_LOGS_CLIENT_KEY": "/etc/otel/logs.key", "OTEL_EXPORTER_OTLP_LOGS_CLIENT_CERTIFICATE": "/etc/otel/logs.pem",
            "OTEL_EXPORTER_OTLP_INSECURE": "true",
        ]
        let result = Self.apply(environment)
        #expect(Self.warned(result.warnings) == ["OTEL_EXPORTER_OTLP_INSECURE"])
        let otlp = try #require(result.configuration.otlp)
        #expect(
            otlp.tls == .init(certificate: "/etc/otel/ca.pem", clientKey: "/etc/otel/client.key", clientCertificate: "/etc/otel/client.pem")
        )
        #expect(
            otlp.resolved(for: .traces)?.tls
                == .init(
                    certificate: "/etc/otel/traces-ca.pem", clientKey: "/etc/otel/client.key", clientCertificate: "/etc/otel/client.pem"))
        #expect(
            otlp.resolved(for: .logs)?.tls
                == .init(certificate: "/etc/otel/ca.pem", clientKey: "/etc/otel/logs.key", clientCertificate: "/etc/otel/logs.pem"))
        #expect(result.configuration.problems.isEmpty, "\(result.configuration.problems)")
        // Where to deliver is not said: nothing is made, and the variable is warned about (never silently ignored).
        let alone = Self.apply(["OTEL_EXPORTER_OTLP_CERTIFICATE": "/etc/otel/ca.pem"])
        #expect(alone.configuration == .default)
        #expect(Self.warned(alone.warnings) == ["OTEL_EXPORTER_OTLP_CERTIFICATE"])
        #expect(alone.warnings.first?.message.contains("no OTLP delivery is configured") == true)
        // A client key without its certificate is a problem of the configuration, named.
        let half = Self.apply(["OTEL_EXPORTER_OTLP_ENDPOINT": "https://c:4318", "OTEL_EXPORTER_OTLP_CLIENT_KEY": "/k"]).configuration
        #expect(half.problems.map(\.keyPath).contains("otlp.tls.clientCertificate"), "\(half.problems)")
        // Once, at the base settings, not again for each signal that only inherits them (it was listed three times).
        #expect(half.problems.filter { $0.message.contains("set both or neither") }.count == 1, "\(half.problems)")
        let signalHalf = Self.apply(["OTEL_EXPORTER_OTLP_ENDPOINT": "https://c:4318", "OTEL_EXPORTER_OTLP_LOGS_CLIENT_KEY": "/k"])
        #expect(
            signalHalf.configuration.problems.map(\.keyPath) == ["otlp.logs.tls.clientCertificate"], "\(signalHalf.configuration.problems)")
    }

    @Test("the TLS files in JSON: otlp.tls and otlp.<signal>.tls")
    func tlsJSON() throws {
        let json = #"{"otlp": {"tls": {"certificate": "/ca.pem"}, "logs": {"tls": {"clientKey": "/k", "clientCertificate": "/c"}}}}"#
        let configuration = try JSONDecoder().decode(Configuration.self, from: Data(json.utf8))
        #expect(configuration.otlp?.resolved(for: .traces)?.tls == .init(certificate: "/ca.pem"))
        #expect(configuration.otlp?.resolved(for: .logs)?.tls == .init(certificate: "/ca.pem", clientKey: "/k", clientCertificate: "/c"))
    }

    // MARK: Sampling

    @Test(
        "OTEL_TRACES_SAMPLER and its argument set the sampling",
        arguments: [
            ("always_on", nil, 1.0, false), ("always_off", nil, 0.0, false), ("traceidratio", "0.25", 0.25, false),
            ("traceidratio", nil, 1.0, false), ("parentbased_always_on", nil, 1.0, true), ("parentbased_always_off", nil, 0.0, true),
            ("parentbased_traceidratio", "0.5", 0.5, true), ("PARENTBASED_TRACEIDRATIO", "1e-2", 0.01, true),
            ("traceidratio", "0", 0.0, false),
        ] as [(String, String?, Double, Bool)])
    func sampler(name: String, argument: String?, ratio: Double, parentBased: Bool) {
        var environment = ["OTEL_TRACES_SAMPLER": name]
        environment["OTEL_TRACES_SAMPLER_ARG"] = argument
        let result = Self.apply(environment, to: .init(sampling: .init(ratio: 0.3, parentBased: !parentBased)))
        #expect(result.configuration.sampling == .init(ratio: ratio, parentBased: parentBased))
        #expect(result.warnings.isEmpty)
    }

    @Test("always_off keeps nothing, parentbased_always_off only what the parent kept")
    func samplerBehaviour() {
        let off = Self.apply(["OTEL_TRACES_SAMPLER": "always_off"]).configuration.sampling.sampler
        let traceID = OTLPTraceID(high: 0, low: 0)
        #expect(!off.shouldSample(traceID: traceID, parent: nil, name: "s"))
        let parentBased = Self.apply(["OTEL_TRACES_SAMPLER": "parentbased_always_off"]).configuration.sampling.sampler
        #expect(!parentBased.shouldSample(traceID: traceID, parent: nil, name: "s"))
    }

    @Test("unknown samplers and bad arguments are warned about; a bad ratio means 1, as the specification says")
    func badSampler() {
        let configured = Configuration(sampling: .init(ratio: 0.3, parentBased: false))
        let unknown = Self.apply(["OTEL_TRACES_SAMPLER": "jaeger_remote", "OTEL_TRACES_SAMPLER_ARG": "endpoint=http://x"], to: configured)
        #expect(unknown.configuration == configured)
        #expect(Self.warned(unknown.warnings) == ["OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG"])
        for argument in ["1.5", "-0.1", "NaN", "nan", "inf", "half", "0,5", "１", "1e400"] {
            let result = Self.apply(["OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": argument], to: configured)
            #expect(result.configuration.sampling == .init(ratio: 1, parentBased: false), "\(argument)")
            #expect(Self.warned(result.warnings) == ["OTEL_TRACES_SAMPLER_ARG"], "\(argument)")
        }
        let argumentAlone = Self.apply(["OTEL_TRACES_SAMPLER_ARG": "0.5"], to: configured)
        #expect(argumentAlone.configuration == configured)
        #expect(argumentAlone.warnings == [.environmentVariable("OTEL_TRACES_SAMPLER_ARG", "used only with OTEL_TRACES_SAMPLER; ignored")])
        let unused = Self.apply(["OTEL_TRACES_SAMPLER": "always_on", "OTEL_TRACES_SAMPLER_ARG": "0.5"])
        #expect(unused.configuration.sampling == .init(ratio: 1, parentBased: false))
        #expect(Self.warned(unused.warnings) == ["OTEL_TRACES_SAMPLER_ARG"])
    }

    // MARK: Batching

    @Test("OTEL_BSP_* set the batching (milliseconds where the specification says so); logs follow unless OTEL_BLRP_* are set")
    func batchSpanProcessor() {
        let result = Self.apply([
            "OTEL_BSP_SCHEDULE_DELAY": "250", "OTEL_BSP_EXPORT_TIMEOUT": "5000", "OTEL_BSP_MAX_QUEUE_SIZE": "4096",
            "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "1024",
        ])
        #expect(result.warnings.isEmpty)
        #expect(
            result.configuration.batch
                == .init(maxQueueSize: 4096, maxExportBatchSize: 1024, scheduleDelaySeconds: 0.25, exportTimeoutSeconds: 5))
        #expect(result.configuration.logsBatch == nil)
        #expect(result.configuration.batch(for: .logs) == result.configuration.batch)
        #expect(Self.apply(["OTEL_BSP_EXPORT_TIMEOUT": "0"]).configuration.batch.exportTimeoutSeconds == 86_400)
    }

    @Test("OTEL_BSP_WHEN_FULL and _WHEN_FULL_TIMEOUT (this SDK's own) set whenFull and its timeout; OTEL_BLRP_* those of logsBatch")
    func whenFull() {
        let result = Self.apply(["OTEL_BSP_WHEN_FULL": "wait", "OTEL_BSP_WHEN_FULL_TIMEOUT": "250"])
        #expect(result.warnings.isEmpty)
        #expect(result.configuration.batch == .init(whenFull: .wait, whenFullTimeoutSeconds: 0.25))
        #expect(result.configuration.logsBatch == nil)
        let logs = Self.apply(["OTEL_BLRP_WHEN_FULL": "WAIT"])
        #expect(logs.configuration.batch.whenFull == .drop)
        #expect(logs.configuration.logsBatch == .init(whenFull: .wait))
        let bad = Self.apply(["OTEL_BSP_WHEN_FULL": "block", "OTEL_BSP_WHEN_FULL_TIMEOUT": "0"])
        #expect(bad.configuration.batch == .default)
        #expect(
            bad.warnings == [
                .environmentVariable("OTEL_BSP_WHEN_FULL", "must be drop, wait, got \"block\"; ignored"),
                .environmentVariable("OTEL_BSP_WHEN_FULL_TIMEOUT", "must be between 1 and 86400000 milliseconds, got 0; ignored"),
            ])
    }

    @Test("OTEL_BLRP_* set logsBatch, starting from the span batching")
    func batchLogRecordProcessor() {
        let configured = Configuration(batch: .init(maxQueueSize: 100, maxExportBatchSize: 50))
        let result = Self.apply(
            [
                "OTEL_BSP_SCHEDULE_DELAY": "2000", "OTEL_BLRP_SCHEDULE_DELAY": "1000", "OTEL_BLRP_EXPORT_TIMEOUT": "3000",
                "OTEL_BLRP_MAX_QUEUE_SIZE": "200", "OTEL_BLRP_MAX_EXPORT_BATCH_SIZE": "20",
            ], to: configured)
        #expect(result.warnings.isEmpty)
        #expect(result.configuration.batch == .init(maxQueueSize: 100, maxExportBatchSize: 50, scheduleDelaySeconds: 2))
        #expect(
            result.configuration.logsBatch
                == .init(maxQueueSize: 200, maxExportBatchSize: 20, scheduleDelaySeconds: 1, exportTimeoutSeconds: 3))
        #expect(result.configuration.batch(for: .logs) == result.configuration.logsBatch)
        #expect(result.configuration.batch(for: .traces) == result.configuration.batch)
        let onlyQueue = Self.apply(["OTEL_BLRP_MAX_QUEUE_SIZE": "64"])
        #expect(onlyQueue.configuration.logsBatch == .init(maxQueueSize: 64, maxExportBatchSize: 64))
        #expect(
            onlyQueue.warnings == [
                .environmentVariable("OTEL_BLRP_MAX_QUEUE_SIZE", "smaller than the export batch size 512; the batch size is lowered to 64")
            ])
        #expect(onlyQueue.configuration.problems.isEmpty)
    }

    @Test(
        "malformed batching values are warned about and ignored",
        arguments: [
            ("OTEL_BSP_SCHEDULE_DELAY", "0"), ("OTEL_BSP_SCHEDULE_DELAY", "-5"), ("OTEL_BSP_SCHEDULE_DELAY", "5s"),
            ("OTEL_BSP_SCHEDULE_DELAY", "86400001"), ("OTEL_BSP_EXPORT_TIMEOUT", "999"), ("OTEL_BSP_EXPORT_TIMEOUT", "1e3"),
            ("OTEL_BSP_MAX_QUEUE_SIZE", "0"), ("OTEL_BSP_MAX_QUEUE_SIZE", "-1"), ("OTEL_BSP_MAX_QUEUE_SIZE", "2147483647"),
            ("OTEL_BSP_MAX_QUEUE_SIZE", "18446744073709551616"), ("OTEL_BSP_MAX_QUEUE_SIZE", "many"),
            ("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "2049"), ("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "0"),
            ("OTEL_BLRP_SCHEDULE_DELAY", "\u{0}"), ("OTEL_BLRP_EXPORT_TIMEOUT", "-0.5"), ("OTEL_BLRP_MAX_QUEUE_SIZE", "½"),
            ("OTEL_BLRP_MAX_EXPORT_BATCH_SIZE", "--1"),
        ])
    func badBatching(name: String, value: String) {
        let result = Self.apply([name: value])
        #expect(result.configuration == .default)
        #expect(Self.warned(result.warnings) == [name])
    }

    @Test("the export batch size is checked against the queue size the environment sets")
    func batchSizeAgainstQueue() {
        let result = Self.apply(["OTEL_BSP_MAX_QUEUE_SIZE": "100", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "200"])
        #expect(result.configuration.batch.maxQueueSize == 100)
        #expect(result.configuration.batch.maxExportBatchSize == 100)
        #expect(
            result.warnings.map(\.description) == [
                "environment variable OTEL_BSP_MAX_EXPORT_BATCH_SIZE (must be between 1 and 100 (the queue size), got 200; ignored)",
                "environment variable OTEL_BSP_MAX_QUEUE_SIZE (smaller than the export batch size 512; the batch size is lowered to 100)",
            ])
    }

    // MARK: Limits

    @Test("the limit variables map onto OTLPLimits")
    func limits() {
        let result = Self.apply([
            "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT": "100", "OTEL_ATTRIBUTE_COUNT_LIMIT": "10", "OTEL_SPAN_EVENT_COUNT_LIMIT": "3",
            "OTEL_SPAN_LINK_COUNT_LIMIT": "4", "OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT": "5", "OTEL_LINK_ATTRIBUTE_COUNT_LIMIT": "6",
        ])
        #expect(result.warnings.isEmpty)
        #expect(
            result.configuration.limits
                == OTLPLimits(
                    attributeCountLimit: 10, attributeValueLengthLimit: 100, eventCountLimit: 3, linkCountLimit: 4,
                    attributePerEventCountLimit: 5, attributePerLinkCountLimit: 6))
        #expect(
            Self.apply(["OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT": "0", "OTEL_SPAN_EVENT_COUNT_LIMIT": "0"]).configuration.limits
                == OTLPLimits(attributeValueLengthLimit: 0, eventCountLimit: 0))
    }

    @Test("span and log record variables win over the general ones; they share one limit, the span one wins a disagreement")
    func signalLimits() {
        let span = Self.apply([
            "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT": "100", "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT": "200",
            "OTEL_ATTRIBUTE_COUNT_LIMIT": "10", "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT": "20",
        ])
        #expect(span.warnings.isEmpty)
        #expect(span.configuration.limits.attributeValueLengthLimit == 200 && span.configuration.limits.attributeCountLimit == 20)
        let logRecord = Self.apply([
            "OTEL_ATTRIBUTE_COUNT_LIMIT": "10", "OTEL_LOGRECORD_ATTRIBUTE_COUNT_LIMIT": "30",
            "OTEL_LOGRECORD_ATTRIBUTE_VALUE_LENGTH_LIMIT": "300",
        ])
        #expect(logRecord.warnings.isEmpty)
        #expect(logRecord.configuration.limits.attributeCountLimit == 30 && logRecord.configuration.limits.attributeValueLengthLimit == 300)
        let agree = Self.apply(["OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT": "7", "OTEL_LOGRECORD_ATTRIBUTE_COUNT_LIMIT": "7"])
        #expect(agree.warnings.isEmpty && agree.configuration.limits.attributeCountLimit == 7)
        let disagree = Self.apply(["OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT": "7", "OTEL_LOGRECORD_ATTRIBUTE_COUNT_LIMIT": "9"])
        #expect(disagree.configuration.limits.attributeCountLimit == 7)
        #expect(
            disagree.warnings == [
                .environmentVariable(
                    "OTEL_LOGRECORD_ATTRIBUTE_COUNT_LIMIT",
                    "spans and log records share one limit and OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT sets it to 7; ignored")
            ])
    }

    @Test(
        "malformed limits are warned about and ignored",
        arguments: [
            ("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "-1"), ("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "2147483647"),
            ("OTEL_ATTRIBUTE_COUNT_LIMIT", "10001"), ("OTEL_ATTRIBUTE_COUNT_LIMIT", "ten"),
            ("OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "1.0"),
            ("OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "-0x1"), ("OTEL_SPAN_EVENT_COUNT_LIMIT", "10001"), ("OTEL_SPAN_LINK_COUNT_LIMIT", "∞"),
            ("OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT", "9999999999999999999999"), ("OTEL_LINK_ATTRIBUTE_COUNT_LIMIT", "-128"),
            ("OTEL_LOGRECORD_ATTRIBUTE_COUNT_LIMIT", "1 2"), ("OTEL_LOGRECORD_ATTRIBUTE_VALUE_LENGTH_LIMIT", "=1"),
        ])
    func badLimits(name: String, value: String) {
        let result = Self.apply([name: value])
        #expect(result.configuration == .default)
        #expect(Self.warned(result.warnings) == [name])
    }

    // MARK: Everything at once

    @Test("hostile values everywhere: warnings, the configuration still valid, nothing traps")
    func hostile() {
        let hostile = [
            "=", "==", ",", "%", "%%", "%0", "\u{0}", "\u{1B}[31m", String(repeating: "9", count: 10_000), "-9223372036854775808",
            "9223372036854775808", "NaN", "-inf", "1e308", "🐦", "ｔｒｕｅ", "a=b=c", " , = , ", "http://[::1", "\u{202E}gzip",
        ]
        let names = [
            "OTEL_SDK_DISABLED", "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_TRACES_EXPORTER", "OTEL_LOGS_EXPORTER",
            "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
            "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_LOGS_HEADERS",
            "OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "OTEL_EXPORTER_OTLP_LOGS_COMPRESSION",
            "OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_LOGS_TIMEOUT",
            "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL",
            "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG", "OTEL_BSP_SCHEDULE_DELAY", "OTEL_BSP_EXPORT_TIMEOUT",
            "OTEL_BSP_MAX_QUEUE_SIZE",
            "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "OTEL_BLRP_SCHEDULE_DELAY", "OTEL_BLRP_EXPORT_TIMEOUT", "OTEL_BLRP_MAX_QUEUE_SIZE",
            "OTEL_BLRP_MAX_EXPORT_BATCH_SIZE", "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_ATTRIBUTE_COUNT_LIMIT",
            "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "OTEL_SPAN_EVENT_COUNT_LIMIT",
            "OTEL_SPAN_LINK_COUNT_LIMIT", "OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT", "OTEL_LINK_ATTRIBUTE_COUNT_LIMIT",
            "OTEL_LOGRECORD_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_LOGRECORD_ATTRIBUTE_COUNT_LIMIT",
        ]
        for value in hostile {
            let result = Self.apply(Dictionary(uniqueKeysWithValues: names.map { ($0, value) }))
            let problems = result.configuration.problems.filter { $0.keyPath != "service.name" }
            #expect(problems.isEmpty, "\(value): \(problems)")
            #expect(!result.warnings.isEmpty, "\(value)")
            #expect(result.warnings.allSatisfy { $0.code == .environmentVariable && $0.keyPath.count == 1 })
            #expect(result.warnings.allSatisfy { !$0.description.unicodeScalars.contains { $0 == "\u{0}" || $0 == "\u{1B}" } })
        }
    }

    @Test("the warning code and description")
    func warningDescription() {
        let warning = OTLPConfigurationWarning.environmentVariable("OTEL_BSP_MAX_QUEUE_SIZE", "not a whole number: \"lots\"; ignored")
        #expect(warning.code == .environmentVariable && warning.code != .unknownKey)
        #expect(warning.keyPath == ["OTEL_BSP_MAX_QUEUE_SIZE"])
        #expect(warning.description == "environment variable OTEL_BSP_MAX_QUEUE_SIZE (not a whole number: \"lots\"; ignored)")
        #expect(Self.apply(["OTEL_BSP_MAX_QUEUE_SIZE": "lots"]).warnings == [warning])
        #expect(Self.apply(["OTEL_BSP_MAX_QUEUE_SIZE": String(repeating: "x", count: 100)]).warnings.first?.message.contains("…") == true)
    }

    @Test("a collector endpoint in the environment makes a pipeline configuration with otlp and the files")
    func demoCase() throws {
        let file = try OTLPTelemetryConfiguration.load(json: Data(#"{"traces": {"path": "t.bin"}, "logs": {"path": "l.bin"}}"#.utf8))
            .configuration
        let result = file.applyingEnvironment(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SERVICE_NAME": "demo"])
        #expect(result.warnings.isEmpty)
        #expect(result.configuration.traces.path == "t.bin" && result.configuration.logs.path == "l.bin")
        #expect(result.configuration.otlp == OTLPExporterConfiguration(endpoint: "http://127.0.0.1:4318"))
        #expect(result.configuration.problems.isEmpty)
    }
}
