import Foundation
import OTLPTestSupport
import Testing

/// `otlp-dump send` to an `https` collector behind a private CA: the same TLS files as the library, from
/// options or the OTEL_EXPORTER_OTLP_* variables.
@Suite("otlp-dump send over TLS", .serialized)
struct SendTLSTests {
    @Test("--certificate or OTEL_EXPORTER_OTLP_CERTIFICATE: every record accepted; neither: TLS failed, exit 3, nothing counted as sent")
    func privateCertificateAuthority() throws {
        let certificates = try OTLPTestCertificates()
        defer { certificates.remove() }
        let server = try OTLPTestTLSServer(certificates)
        defer { server.stop() }
        let file = certificates.folder.appendingPathComponent("traces.u32be.bin")
        try TraceAcrossRecordsTests.framed([[TraceAcrossRecordsTests.span("GET /cart", id: 1, parent: nil, start: 1_000)]]).write(to: file)
        let arguments = ["send", "--endpoint", "https://127.0.0.1:\(server.port)", "--compression", "none", "--timeout", "2", file.path]

        let withOption = try OTLPProcess.run(OTLPDumpRunner.binary, arguments + ["--certificate", certificates.ca])
        #expect(withOption.status == 0, "\(withOption.errors)")
        #expect(server.nextLine()?.hasPrefix("received /v1/traces ") == true)
        let withVariable = try OTLPProcess.run(
            OTLPDumpRunner.binary, arguments, environment: ["OTEL_EXPORTER_OTLP_CERTIFICATE": certificates.ca])
        #expect(withVariable.status == 0, "\(withVariable.errors)")
        #expect(server.nextLine()?.hasPrefix("received /v1/traces ") == true)

        let without = try OTLPProcess.run(OTLPDumpRunner.binary, arguments)
        #expect(without.status == 3)
        #expect(without.errors.contains("TLS failed"), "\(without.errors)")
        #expect(without.output.contains("accepted 0 records"), "\(without.output)")

        // Regression: `http://` to the TLS port retried for seconds and said only that the connection closed.
        let plain = try OTLPProcess.run(
            OTLPDumpRunner.binary,
            ["send", "--endpoint", "http://127.0.0.1:\(server.port)", "--compression", "none", "--timeout", "2", file.path])
        #expect(plain.status == 3)
        #expect(plain.errors.contains("the endpoint is https://"), "\(plain.errors)")
    }
}
