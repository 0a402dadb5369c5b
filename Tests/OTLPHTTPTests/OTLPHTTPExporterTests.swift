import Foundation
import OTLPHTTP
import OTLPTelemetry
import OTLPTestSupport
import OTLPTesting
import OTLPWire
import Testing

/// The exporter against the scripted server: what it sends, and what it does with each kind of answer.
@Suite("OTLPHTTPExporter", .serialized)
struct OTLPHTTPExporterTests {
    typealias Data_ = OTLPHTTPTestData

    @Test("protobuf, gzip: POST /v1/traces with the specification's headers; every span arrives as sent")
    func protobufGzip() throws {
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let counters = OTLPTelemetryCounters()
        let exporter = OTLPHTTPExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint, headers: ["api-key": "secret=1", "X-Tenant": "a b"]), resource: Data_.resource,
            counters: counters)
        let spans = Data_.spans(50)
        #expect(exporter.export(spans))
        exporter.shutdown()
        collector.stop()
        let requests = collector.requests
        #expect(requests.count == 1)
        let request = try #require(requests.first)
        #expect(request.path == "/v1/traces")
        #expect(request.headers["content-type"] == "application/x-protobuf")
        #expect(request.headers["content-encoding"] == "gzip")
        #expect(request.headers["user-agent"]?.hasPrefix("OTLPWire/") == true)
        #expect(request.headers["api-key"] == "secret=1" && request.headers["x-tenant"] == "a b")
        #expect(Array(request.body.prefix(2)) == [0x1F, 0x8B])
        #expect(collector.items.sorted() == (try Data_.canonical(spans)).sorted())
        #expect(counters.snapshot.spansExported == 50 && counters.snapshot.totalSpansDropped == 0)
        #expect(counters.snapshot.bytesWritten > 0)
    }

    @Test("JSON, no compression: POST /v1/logs as OTLP JSON; every log record arrives as sent")
    func jsonPlain() throws {
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let counters = OTLPTelemetryCounters()
        let exporter = OTLPHTTPExporter<OTLPScopedLogRecord>(
            endpoint: Data_.endpoint(collector.endpoint + "/", protocol: .httpJSON, compression: OTLPCompression.none, signal: .logs),
            resource: Data_.resource, counters: counters)
        let records = Data_.logRecords(30)
        #expect(exporter.export(records))
        exporter.shutdown()
        collector.stop()
        let request = try #require(collector.requests.first)
        #expect(request.path == "/v1/logs")
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.headers["content-encoding"] == nil)
        #expect(request.body.first == UInt8(ascii: "{"))
        #expect(collector.items.sorted() == (try Data_.canonical(records)).sorted())
        #expect(counters.snapshot.logRecordsExported == 30)
    }

    @Test("503 with Retry-After: 1, twice, then 200: delivered exactly once, after at least 2 s, 2 retries counted")
    func retryAfter() throws {
        let busy = OTLPTestCollector.Answer(status: 503, headers: ["Retry-After": "1"])
        let collector = try OTLPTestCollector(answers: [busy, busy])
        defer { collector.removeRecords() }
        let counters = OTLPTelemetryCounters()
        let clock = Data_.jumpingClock()
        let exporter = Data_.exporter(OTLPScopedSpan.self, endpoint: Data_.endpoint(collector.endpoint), counters: counters, clock: clock)
        let started = clock.nowMonotonicNano()
        #expect(exporter.export(Data_.spans(10)))
        #expect(clock.nowMonotonicNano() - started >= 2_000_000_000)
        exporter.shutdown()
        collector.stop()
        #expect(collector.requests.count == 3)
        #expect(collector.items.count == 10)
        #expect(counters.snapshot.spansExported == 10 && counters.snapshot.spanExportRetries == 2)
    }

    @Test("429 and 502/504 are retried with backoff")
    func otherRetryable() throws {
        let collector = try OTLPTestCollector(answers: [.init(status: 429), .init(status: 502), .init(status: 504)])
        defer { collector.removeRecords() }
        let counters = OTLPTelemetryCounters()
        let exporter = Data_.exporter(
            OTLPScopedSpan.self, endpoint: Data_.endpoint(collector.endpoint), counters: counters, retryPolicy: Data_.quickRetries,
            clock: Data_.jumpingClock())
        #expect(exporter.export(Data_.spans(3)))
        exporter.shutdown()
        collector.stop()
        #expect(collector.requests.count == 4 && collector.items.count == 3)
        #expect(counters.snapshot.spanExportRetries == 3 && counters.snapshot.spansExported == 3)
    }

    @Test(
        "400 with a google.rpc.Status body (protobuf and JSON): refused for its content, counted rejected, the message reported, not retried",
        arguments: [false, true])
    func badRequest(json: Bool) throws {
        let status = OTLPRPCStatus(code: 3, message: "span 4 has an invalid trace id\u{1B}]0;owned\u{07}", detailTypeURLs: [])
        let answer = OTLPTestCollector.Answer(
            status: 400, headers: ["Content-Type": json ? "application/json" : "application/x-protobuf"],
            body: json ? status.jsonEncoded() : status.encoded())
        let collector = try OTLPTestCollector(answers: [answer])
        defer { collector.removeRecords() }
        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let exporter = OTLPHTTPExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint), resource: Data_.resource, counters: counters, retryPolicy: Data_.quickRetries,
            diagnostics: messages.add)
        #expect(!exporter.export(Data_.spans(7)))
        exporter.shutdown()
        collector.stop()
        #expect(collector.requests.count == 1)
        #expect(counters.snapshot.spansDropped == [.rejected: 7] && counters.snapshot.spansExported == 0)
        #expect(messages.all.count == 1)
        #expect(messages.all.first?.contains("HTTP 400: span 4 has an invalid trace id\\u{1B}]0;owned\\u{07}") == true, "\(messages.all)")
    }

    @Test(
        "a 400 whose JSON body is not a Status with an error code (a gateway's {\"error\": ...}, or {}) is not a refusal of the content: counted export_failed, its text reported",
        arguments: [#"{"error":"invalid api key"}"#, "{}"])
    func badRequestNotOTLP(body: String) throws {
        let collector = try OTLPTestCollector(answers: [
            .init(status: 400, headers: ["Content-Type": "Application/JSON; charset=utf-8"], body: Array(body.utf8))
        ])
        defer { collector.removeRecords() }
        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let exporter = OTLPHTTPExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint), resource: Data_.resource, counters: counters, diagnostics: messages.add)
        #expect(!exporter.export(Data_.spans(2)))
        exporter.shutdown()
        collector.stop()
        #expect(counters.snapshot.spansDropped == [.exportFailed: 2])
        #expect(messages.all.first?.contains("not an OTLP answer") == true, "\(messages.all)")
    }

    @Test("a collector echoing the configured credential in its error text: the credential is not printed")
    func echoedCredentialRedacted() throws {
        let collector = try OTLPTestCollector(answers: [
            .init(
                status: 403, headers: ["Content-Type": "text/plain"],
                body: Array("token Bearer SECRET-TOKEN-1 unknown; also SECRET-TOKEN-1".utf8))
        ])
        defer { collector.removeRecords() }
        let messages = Messages()
        let exporter = OTLPHTTPExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint, headers: ["Authorization": "Bearer SECRET-TOKEN-1"]), resource: Data_.resource,
            diagnostics: messages.add)
        #expect(!exporter.export(Data_.spans(1)))
        exporter.shutdown()
        collector.stop()
        #expect(messages.all.contains { $0.contains("HTTP 403") }, "\(messages.all)")
        #expect(!messages.all.contains { $0.contains("SECRET") }, "\(messages.all)")
    }

    @Test("a 500 with a plain-text body is not retried; its text is reported, escaped")
    func serverErrorText() throws {
        let collector = try OTLPTestCollector(answers: [
            .init(status: 500, headers: ["Content-Type": "text/plain"], body: Array("boom\n\u{1B}[31m".utf8))
        ])
        defer { collector.removeRecords() }
        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let exporter = OTLPHTTPExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint), resource: Data_.resource, counters: counters, diagnostics: messages.add)
        #expect(!exporter.export(Data_.spans(2)))
        exporter.shutdown()
        collector.stop()
        #expect(collector.requests.count == 1)
        #expect(counters.snapshot.spansDropped == [.exportFailed: 2])
        #expect(messages.all.first?.contains("HTTP 500: boom\\n\\u{1B}[31m") == true)
    }

    @Test(
        "a partial success: the rejected items are counted as dropped (rejected), the rest as exported, its message reported",
        // The media type is case-insensitive and may carry parameters (a JSON answer was read as protobuf
        // when it was spelt `Application/JSON`).
        arguments: ["application/x-protobuf", "application/json", "Application/JSON; charset=utf-8"])
    func partialSuccess(contentType: String) throws {
        let json = contentType.lowercased().hasPrefix("application/json")
        let response = OTLPExportResponse(rejectedItems: 3, errorMessage: "3 log records too old")
        let answer = OTLPTestCollector.Answer(
            status: 200, headers: ["Content-Type": contentType],
            body: json ? response.jsonEncoded(for: .logs) : response.encoded(for: .logs))
        let collector = try OTLPTestCollector(answers: [answer])
        defer { collector.removeRecords() }
        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let exporter = OTLPHTTPExporter<OTLPScopedLogRecord>(
            endpoint: Data_.endpoint(collector.endpoint, signal: .logs), resource: Data_.resource, counters: counters,
            diagnostics: messages.add)
        #expect(!exporter.export(Data_.logRecords(10)))
        exporter.shutdown()
        collector.stop()
        #expect(counters.snapshot.logRecordsExported == 7 && counters.snapshot.logRecordsDropped == [.rejected: 3])
        #expect(messages.all.count == 1 && messages.all[0].contains("3 log records rejected: 3 log records too old"))
    }

    @Test("a 200 with an HTML page (a proxy's or login page) is not delivered: counted export_failed, reported (regression: accepted)")
    func htmlPageIsNotAnAnswer() throws {
        let answer = OTLPTestCollector.Answer(
            status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: Array("<html>Sign in</html>".utf8))
        let collector = try OTLPTestCollector(answers: [answer])
        defer { collector.removeRecords() }
        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let exporter = OTLPHTTPExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint), resource: Data_.resource, counters: counters, diagnostics: messages.add)
        #expect(!exporter.export(Data_.spans(3)))
        exporter.shutdown()
        collector.stop()
        #expect(counters.snapshot.spansDropped == [.exportFailed: 3] && counters.snapshot.spansExported == 0)
        #expect(messages.all.first?.contains("HTML page, not an OTLP answer") == true, "\(messages.all)")
    }

    @Test("a server that accepts the connection and never answers: given up at the timeout, counted, reported")
    func hangingServer() throws {
        let collector = try OTLPTestCollector(answers: [.hang, .hang, .hang])
        defer { collector.removeRecords() }
        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        // The wait is the socket's, for an answer that never comes: it stays real time, one second (a clock
        // moved by the test would not end it sooner).
        let exporter = OTLPHTTPExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint, timeoutSeconds: 1), resource: Data_.resource, counters: counters,
            retryPolicy: Data_.quickRetries, diagnostics: messages.add)
        #expect(!exporter.export(Data_.spans(4)))
        exporter.shutdown()
        collector.stop()
        #expect(counters.snapshot.spansDropped == [.exportFailed: 4])
        #expect(messages.all.first?.contains("no answer before the timeout") == true)
    }

    @Test("nobody listening: retried until the timeout, then dropped and counted")
    func connectionRefused() throws {
        let port = try OTLPFreePort.unused()
        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let exporter = Data_.exporter(
            OTLPScopedSpan.self, endpoint: Data_.endpoint("http://127.0.0.1:\(port)", timeoutSeconds: 1), counters: counters,
            retryPolicy: Data_.quickRetries, diagnostics: messages.add, clock: Data_.jumpingClock())
        #expect(!exporter.export(Data_.spans(5)))
        exporter.shutdown()
        #expect(counters.snapshot.spansDropped == [.exportFailed: 5])
        #expect(counters.snapshot.spanExportRetries >= 1)
        #expect(messages.all.first?.contains("gave up after") == true)
        // The cause in words (regression: "connection reset (error set): Connection refused").
        #expect(messages.all.first?.contains("connection refused") == true, "\(messages.all)")
        #expect(messages.all.first?.contains("connection reset") == false, "\(messages.all)")
    }

    @Test("a server that does not speak HTTP: reported as such, not as parser jargon; the spans counted export_failed")
    func notHTTP() throws {
        let server = try OTLPAbruptCloseServer(closeEvery: 1, answer: Array("SSH-2.0-OpenSSH_9.2\r\n".utf8))
        defer { server.stop() }
        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let exporter = Data_.exporter(
            OTLPScopedSpan.self, endpoint: Data_.endpoint(server.endpoint, timeoutSeconds: 1), counters: counters,
            retryPolicy: Data_.quickRetries, diagnostics: messages.add, clock: Data_.jumpingClock())
        #expect(!exporter.export(Data_.spans(2)))
        exporter.shutdown()
        #expect(counters.snapshot.spansDropped == [.exportFailed: 2])
        #expect(messages.all.first?.contains("the answer is not HTTP") == true, "\(messages.all)")
    }

    @Test("Retry-After: 0 cannot make a storm: the backoff still grows (regression: thousands of requests per timeout)")
    func retryAfterZero() throws {
        let busy = OTLPTestCollector.Answer(status: 503, headers: ["Retry-After": "0"])
        let collector = try OTLPTestCollector(answers: Array(repeating: busy, count: 50))
        defer { collector.removeRecords() }
        let counters = OTLPTelemetryCounters()
        let exporter = Data_.exporter(
            OTLPScopedSpan.self, endpoint: Data_.endpoint(collector.endpoint, timeoutSeconds: 2), counters: counters,
            diagnostics: Messages().add, clock: Data_.jumpingClock())
        #expect(!exporter.export(Data_.spans(1)))
        exporter.shutdown()
        collector.stop()
        // 1 s, then 2 s of backoff (jittered down to at least 0.5 s and 1 s): at most 3 attempts in 2 s.
        #expect(collector.requests.count <= 3)
        #expect(counters.snapshot.spansDropped == [.exportFailed: 1])
    }

    @Test("a redirect is an answer, not followed: the POST is not turned into an empty GET counted as delivered")
    func redirectNotFollowed() throws {
        let collector = try OTLPTestCollector(answers: [.init(status: 301, headers: ["Location": "http://127.0.0.1:9/v1/traces"])])
        defer { collector.removeRecords() }
        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let exporter = OTLPHTTPExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint), resource: Data_.resource, counters: counters, diagnostics: messages.add)
        #expect(!exporter.export(Data_.spans(3)))
        exporter.shutdown()
        collector.stop()
        #expect(collector.requests.count == 1)
        #expect(counters.snapshot.spansDropped == [.exportFailed: 3] && counters.snapshot.spansExported == 0)
        #expect(messages.all.first?.contains("HTTP 301") == true)
    }

    @Test("an unreadable 2xx answer: delivered, and the unreadable answer reported")
    func unreadableAnswer() throws {
        let collector = try OTLPTestCollector(answers: [
            .init(status: 200, headers: ["Content-Type": "application/x-protobuf"], body: [0xFF, 0xFF, 0xFF])
        ])
        defer { collector.removeRecords() }
        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let exporter = OTLPHTTPExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint), resource: Data_.resource, counters: counters, diagnostics: messages.add)
        #expect(exporter.export(Data_.spans(2)))
        exporter.shutdown()
        collector.stop()
        #expect(counters.snapshot.spansExported == 2)
        #expect(messages.all.first?.contains("answer could not be read") == true, "\(messages.all)")
    }

    @Test("headers the exporter owns are not taken from the configuration")
    func ownHeaders() throws {
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let exporter = OTLPHTTPExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(
                collector.endpoint, headers: ["Content-Type": "text/plain", "Host": "evil.example", "User-Agent": "x"]),
            resource: Data_.resource)
        #expect(exporter.export(Data_.spans(1)))
        exporter.shutdown()
        collector.stop()
        let request = try #require(collector.requests.first)
        #expect(request.headers["content-type"] == "application/x-protobuf")
        #expect(request.headers["host"]?.hasPrefix("127.0.0.1") == true)
        #expect(request.headers["user-agent"]?.hasPrefix("OTLPWire/") == true)
    }

    @Test("after shutdown, exports are refused and counted")
    func afterShutdown() throws {
        let counters = OTLPTelemetryCounters()
        let exporter = OTLPHTTPExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint("http://127.0.0.1:9"), resource: Data_.resource, counters: counters)
        exporter.shutdown()
        #expect(!exporter.export(Data_.spans(2)))
        #expect(counters.snapshot.spansDropped == [.shutDown: 2])
    }
}
