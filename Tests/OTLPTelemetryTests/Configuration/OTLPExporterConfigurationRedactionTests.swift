import Foundation
import OTLPWire
import Testing

@testable import OTLPTelemetry

/// Secrets never leave the process: URLs in diagnostics lose their user-info and query; the environment's
/// warnings name headers, never their values (issue 21, rule 4).
@Suite("Exporter configuration redaction")
struct OTLPExporterConfigurationRedactionTests {
    @Test(
        "a URL's user-info and query are redacted; the rest is kept",
        arguments: [
            ("http://user:secret@collector:4318/v1/traces", "http://<redacted>@collector:4318/v1/traces"),
            ("https://collector/v1/logs?api_key=secret", "https://collector/v1/logs?<redacted>"),
            ("https://secret@collector", "https://<redacted>@collector"),
            ("http://127.0.0.1:4318/v1/traces", "http://127.0.0.1:4318/v1/traces"),
            ("not a URL with a secret", "<redacted URL>"),
        ])
    func redactedURL(url: String, expected: String) {
        #expect(OTLPExporterConfiguration.Resolved.redacted(url: url) == expected)
    }

    @Test("a credential typed as a header name in the configuration file is not shown in its problem")
    func headerNameWithCredential() throws {
        do {
            _ = try OTLPTelemetryConfiguration.load(json: Data(#"{"otlp": {"headers": {"Authorization: Bearer secret": "x"}}}"#.utf8))
            Issue.record("a header name that is not an HTTP token is an error")
        } catch {
            #expect(!"\(error)".contains("secret"), "\(error)")
        }
    }

    @Test(
        "a base endpoint ending in a signal's path is not doubled: taken off for both signals, with a warning naming the signal's variable, once when the telemetry is made (regression: …/v1/traces/v1/traces, 404)"
    )
    func endpointWithSignalPath() throws {
        let configuration = OTLPExporterConfiguration(endpoint: "http://collector:4318/base/v1/traces/")
        #expect(configuration.resolved(for: .traces)?.url.absoluteString == "http://collector:4318/base/v1/traces")
        #expect(configuration.resolved(for: .logs)?.url.absoluteString == "http://collector:4318/base/v1/logs")
        let warning = try #require(OTLPExporterConfiguration.signalPathWarning(endpoint: configuration.endpoint))
        #expect(warning.contains("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
        #expect(OTLPExporterConfiguration.signalPathWarning(endpoint: "http://collector:4318") == nil)
        let messages = Messages()
        let telemetry = OTLPTelemetry(configuration: .init(otlp: configuration), diagnostics: messages.add)
        telemetry.shutdown()
        #expect(messages.all.filter { $0.contains("is taken off") }.count == 1, "\(messages.all)")
    }

    @Test("the resolved endpoint's URL prints without its query")
    func resolvedURL() throws {
        let resolved = try #require(OTLPExporterConfiguration(endpoint: "https://collector:4318/?token=secret").resolved(for: .traces))
        #expect(!resolved.redactedURL.contains("secret"))
        #expect(resolved.redactedURL.hasPrefix("https://collector:4318/v1/traces"))
    }

    @Test(
        "OTEL_EXPORTER_OTLP_ENDPOINT with user:password and malformed headers: the warnings hold no secret",
        arguments: [
            ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://user:secret@collector:4318"],
            ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://user:secret@collector/v1/traces"],
            ["OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer secret\u{01},bare-secret-token"],
            ["OTEL_EXPORTER_OTLP_LOGS_HEADERS": "x-api-key=secret%zz"],
            // A credential typed as a name: split at its base64 padding.
            ["OTEL_EXPORTER_OTLP_HEADERS": "Authorization: Basic c2VjcmV0OnBhc3N3b3Jk=="],
            ["OTEL_EXPORTER_OTLP_ENDPOINT": "admin:secret@collector:4318"],
        ])
    func environmentWarnings(environment: [String: String]) {
        let (_, warnings) = OTLPTelemetryConfiguration.default.applyingEnvironment(environment)
        #expect(!warnings.isEmpty)
        for warning in warnings {
            #expect(!"\(warning)".contains("secret"), "\(warning)")
        }
    }
}
