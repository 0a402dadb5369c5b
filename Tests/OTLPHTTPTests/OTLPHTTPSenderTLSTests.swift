import Foundation
import OTLPHTTP
import OTLPTelemetry
import OTLPTestSupport
import OTLPWire
import Testing

/// `https` with the specification's TLS files, against a loopback TLS server whose certificate authority the
/// test makes (openssl) and which Python's `http.server` serves with `ssl`.
@Suite("OTLPHTTPSender TLS", .serialized)
struct OTLPHTTPSenderTLSTests {
    static let body = OTLPEncoder().encode(
        OTLPTracesData(resource: OTLPHTTPTestData.resource, scope: OTLPHTTPTestData.scope, items: OTLPHTTPTestData.spans(3).map(\.span)))

    /// The traces endpoint of `server` as the environment configures it.
    static func endpoint(
        _ server: OTLPTestTLSServer, host: String = "127.0.0.1", _ variables: [String: String]
    ) throws
        -> OTLPExporterConfiguration.Resolved
    {
        let environment = variables.merging([
            "OTEL_EXPORTER_OTLP_ENDPOINT": "https://\(host):\(server.port)", "OTEL_EXPORTER_OTLP_TIMEOUT": "3000",
            "OTEL_EXPORTER_OTLP_COMPRESSION": "none",
        ]) {
            $1
        }
        let (configuration, warnings) = OTLPTelemetryConfiguration.default.applyingEnvironment(environment)
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(configuration.problems.isEmpty, "\(configuration.problems)")
        return try #require(configuration.otlp?.resolved(for: .traces))
    }

    @Test("OTEL_EXPORTER_OTLP_CERTIFICATE names the private CA: delivered; without it, or with another CA, a clear TLS failure")
    func privateCertificateAuthority() throws {
        let certificates = try OTLPTestCertificates()
        defer { certificates.remove() }
        let server = try OTLPTestTLSServer(certificates)
        defer { server.stop() }

        for host in ["127.0.0.1", "localhost"] {
            let sender = OTLPHTTPSender(
                signal: .traces, endpoint: try Self.endpoint(server, host: host, ["OTEL_EXPORTER_OTLP_CERTIFICATE": certificates.ca]))
            let result = sender.send(Self.body)
            sender.shutdown()
            #expect(result.outcome == .accepted(rejectedItems: 0, message: ""), "\(host): \(result)")
            #expect(server.nextLine() == "received /v1/traces \(Self.body.count)")
        }
        // The signal's own variable wins over the base one.
        let traces = OTLPHTTPSender(
            signal: .traces,
            endpoint: try Self.endpoint(
                server, ["OTEL_EXPORTER_OTLP_CERTIFICATE": certificates.otherCA, "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE": certificates.ca]))
        #expect(traces.send(Self.body).outcome == .accepted(rejectedItems: 0, message: ""))
        traces.shutdown()
        #expect(server.nextLine() == "received /v1/traces \(Self.body.count)")

        for variables in [[:], ["OTEL_EXPORTER_OTLP_CERTIFICATE": certificates.otherCA]] {
            let sender = OTLPHTTPSender(
                signal: .traces, endpoint: try Self.endpoint(server, variables), retryPolicy: OTLPHTTPTestData.quickRetries)
            let result = sender.send(Self.body)
            sender.shutdown()
            guard case .failed(let reason) = result.outcome else {
                Issue.record("expected a TLS failure with \(variables), got \(result)")
                continue
            }
            #expect(reason.contains("TLS failed"), "\(reason)")
            // Tried once: an untrusted certificate does not become trusted by retrying (it was tried 3 times).
            #expect(result.attempts == 1 && reason.contains("not retried"), "\(result)")
        }
    }

    @Test(
        "a collector that asks for a client certificate: delivered with OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and _CLIENT_KEY, refused without"
    )
    func clientCertificate() throws {
        let certificates = try OTLPTestCertificates()
        defer { certificates.remove() }
        let server = try OTLPTestTLSServer(certificates, requireClientCertificate: true)
        defer { server.stop() }
        let mutual = OTLPHTTPSender(
            signal: .traces,
            endpoint: try Self.endpoint(
                server,
                [
                    "OTEL_EXPORTER_OTLP_CERTIFICATE": certificates.ca,
                    "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": certificates.clientCertificate,
                    "OTEL_EXPORTER_OTLP_CLIENT_KEY": certificates.clientKey,
                ]))
        #expect(mutual.send(Self.body).outcome == .accepted(rejectedItems: 0, message: ""))
        mutual.shutdown()
        #expect(server.nextLine() == "received /v1/traces \(Self.body.count)")

        let anonymous = OTLPHTTPSender(
            signal: .traces, endpoint: try Self.endpoint(server, ["OTEL_EXPORTER_OTLP_CERTIFICATE": certificates.ca]),
            retryPolicy: OTLPHTTPTestData.quickRetries)
        let result = anonymous.send(Self.body)
        anonymous.shutdown()
        guard case .failed = result.outcome else {
            Issue.record("a client without a certificate got through: \(result)")
            return
        }
    }

    @Test("a TLS file that cannot be loaded: every request fails at once with the file and its variable named; nothing is sent")
    func unreadableFile() throws {
        let certificates = try OTLPTestCertificates()
        defer { certificates.remove() }
        let missing = certificates.folder.appendingPathComponent("missing.pem").path
        let endpoint = OTLPExporterConfiguration(endpoint: "https://127.0.0.1:9", tls: .init(certificate: missing)).resolved(for: .traces)!
        let sender = OTLPHTTPSender(signal: .traces, endpoint: endpoint)
        let result = sender.send(Self.body)
        sender.shutdown()
        guard case .failed(let reason) = result.outcome else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(result.attempts == 0)
        #expect(reason.contains(missing) && reason.contains("OTEL_EXPORTER_OTLP_CERTIFICATE"), "\(reason)")
    }

    @Test("a signal's own TLS file that cannot be loaded is named with the signal's variable and key, not the base ones")
    func unreadableSignalFile() throws {
        let certificates = try OTLPTestCertificates()
        defer { certificates.remove() }
        let missing = certificates.folder.appendingPathComponent("traces-missing.pem").path
        var configuration = OTLPExporterConfiguration(endpoint: "https://127.0.0.1:9")
        configuration[.traces].tls = .init(certificate: missing)
        let sender = OTLPHTTPSender(signal: .traces, endpoint: try #require(configuration.resolved(for: .traces)))
        let result = sender.send(Self.body)
        sender.shutdown()
        guard case .failed(let reason) = result.outcome else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(result.attempts == 0)
        #expect(
            reason.contains(missing) && reason.contains("OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE")
                && reason.contains("otlp.traces.tls.certificate"),
            "\(reason)")
    }
}
