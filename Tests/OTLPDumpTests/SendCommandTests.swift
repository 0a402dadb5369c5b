import Foundation
import OTLPTestSupport
import OTLPWire
import Testing

/// `otlp-dump send` against rotel and the scripted server.
@Suite("otlp-dump send", .serialized)
struct SendCommandTests {
    static let framed = OTLPDumpRunner.vectors.appendingPathComponent("framed")

    static func framing(of name: String) -> String {
        name.contains(".jsonl") ? "jsonl" : name.contains(".varint.") ? "varint" : "u32be"
    }

    @Test(
        "every framed vector (plain, gzip, multi-member, varint, JSON lines) arrives at rotel with equal content",
        arguments: ["http/protobuf", "http/json"])
    func framedVectorsThroughRotel(wireProtocol: String) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.framed.path).sorted()
        #expect(names.count >= 10)
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let rotel = try OTLPRotel(forwardingTo: collector)
        var expected: [String] = []
        for name in names {
            let path = Self.framed.appendingPathComponent(name).path
            let signal = name.hasPrefix("logs") ? "logs" : "traces"
            let result = try OTLPDumpRunner.run(["send", path, "--endpoint", rotel.endpoint, "--protocol", wireProtocol])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect(result.stdout.hasPrefix("accepted "), "\(name): \(result.stdout)")
            expected += try OTLPTestCollector.canonicalItems(ofFile: path, framing: Self.framing(of: name), signal: signal)
        }
        rotel.stop()
        collector.stop()
        let arrived = collector.items
        #expect(arrived.count == expected.count)
        #expect(arrived.sorted() == expected.sorted())
    }

    @Test("protobuf records are sent as they are: each request body is the record's bytes")
    func passThrough() throws {
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let path = Self.framed.appendingPathComponent("traces-mixed.u32be.bin").path
        let result = try OTLPDumpRunner.run([
            "send", path, "--endpoint", collector.endpoint, "--compression", "none", "--header", "x-team=obs",
        ])
        collector.stop()
        #expect(result.status == 0, "\(result.stderr)")
        let records = OTLPFramedRecords.u32be(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
        let requests = collector.requests
        #expect(requests.map(\.body) == records)
        #expect(
            requests.allSatisfy {
                $0.path == "/v1/traces" && $0.headers["x-team"] == "obs" && $0.headers["content-type"] == "application/x-protobuf"
            })
    }

    @Test("regression: a directory is sent as its OTLP files in name order, as the other commands read it (was io_error)")
    func directory() throws {
        let directory = try OTLPTemporaryDirectory.make("otlp-dump-send-directory")
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in ["traces-mixed.u32be.bin", "logs-mixed.u32be.bin"] {
            try FileManager.default.copyItem(at: Self.framed.appendingPathComponent(name), to: directory.appendingPathComponent(name))
        }
        try Data("not telemetry".utf8).write(to: directory.appendingPathComponent("notes.txt"))
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let result = try OTLPDumpRunner.run(["send", directory.path, "--endpoint", collector.endpoint, "--compression", "none"])
        let empty = try OTLPTemporaryDirectory.make("otlp-dump-send-empty")
        defer { try? FileManager.default.removeItem(at: empty) }
        let nothing = try OTLPDumpRunner.run(["send", empty.path, "--endpoint", collector.endpoint])
        collector.stop()
        #expect(result.status == 0, "\(result.stderr)")
        func records(_ name: String) throws -> [[UInt8]] {
            OTLPFramedRecords.u32be(try [UInt8](Data(contentsOf: Self.framed.appendingPathComponent(name))))
        }
        let expected = try records("logs-mixed.u32be.bin") + records("traces-mixed.u32be.bin")
        #expect(collector.requests.map(\.body) == expected)
        #expect(nothing.status == 2 && nothing.stderr.contains("a directory with no OTLP file"), "\(nothing.stderr)")
        #expect(collector.requests.count == expected.count)
    }

    @Test("a damaged file: the records before the fault are sent, the fault reported, exit 1")
    func damaged() throws {
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let path = OTLPDumpRunner.vectors.appendingPathComponent("bad/traces-truncated-in-body.u32be.bin").path
        let validate = try OTLPDumpRunner.run(["validate", path])
        let before = try #require(validate.stderr.firstMatch(of: /\[(\d+) valid records before it\]/).flatMap { Int($0.1) })
        let result = try OTLPDumpRunner.run(["send", path, "--endpoint", collector.endpoint])
        collector.stop()
        #expect(result.status == 1)
        #expect(result.stderr.contains("truncated_record"))
        #expect(collector.requests.count == before)
        #expect(result.stdout.hasPrefix("accepted \(before) records"))
    }

    @Test("a collector refusing records for their content (400 with an OTLP Status): every record is sent and reported, exit 3")
    func badRequest() throws {
        let status = OTLPRPCStatus(code: 3, message: "no thanks", detailTypeURLs: [])
        let collector = try OTLPTestCollector(
            answers: Array(
                repeating: .init(status: 400, headers: ["Content-Type": "application/x-protobuf"], body: status.encoded()), count: 100))
        defer { collector.removeRecords() }
        let path = Self.framed.appendingPathComponent("traces-edge.varint.bin").path
        let reader = try OTLPRecordReader(path: path)
        var records = 0
        while let record = try reader.nextChecked() { if record.itemCount > 0 { records += 1 } }
        let result = try OTLPDumpRunner.run(["send", path, "--endpoint", collector.endpoint])
        collector.stop()
        #expect(result.status == 3)
        #expect(result.stderr.contains("HTTP 400: no thanks"))
        #expect(result.stdout.contains("not accepted"))
        #expect(collector.requests.count == records, "every record is sent")
    }

    @Test(
        "an endpoint that answers as no OTLP endpoint would (401, 404, 500, a redirect, a 400 that is not OTLP): sending stops at the first record, the answer reported, exit 3",
        arguments: [401, 404, 500, 302, 400])
    func endpointRefusing(statusCode: Int) throws {
        let collector = try OTLPTestCollector(
            answers: Array(
                repeating: .init(
                    status: statusCode, headers: ["Content-Type": "text/plain", "Location": "http://u:SECRET-PASSWORD@x/"],
                    body: Array("no thanks".utf8)), count: 100))
        defer { collector.removeRecords() }
        let path = Self.framed.appendingPathComponent("traces-mixed.u32be.bin").path
        let result = try OTLPDumpRunner.run(["send", path, "--endpoint", collector.endpoint])
        collector.stop()
        #expect(result.status == 3)
        #expect(result.stderr.contains("HTTP \(statusCode)") && result.stderr.contains("stopping"), "\(result.stderr)")
        #expect(!result.stderr.contains("SECRET-PASSWORD"), "\(result.stderr)")
        #expect(collector.requests.count == 1)
        // The summary names the URL posted to, which is what "check its path" is about (it named the base URL).
        #expect(result.stdout.contains("at \(collector.endpoint)/v1/traces"), "\(result.stdout)")
    }

    @Test(
        "an endpoint ending in a signal's path: taken off with a warning, as the library does; every record arrives at /v1/traces once (regression: refused here, doubled by the library)",
        arguments: ["/v1/traces", "/v1/logs/", "/v1/metrics"])
    func endpointWithSignalPath(suffix: String) throws {
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let path = Self.framed.appendingPathComponent("traces-mixed.u32be.bin").path
        let result = try OTLPDumpRunner.run(["send", path, "--endpoint", collector.endpoint + suffix])
        collector.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("is taken off"), "\(result.stderr)")
        #expect(!collector.requests.isEmpty && collector.requests.allSatisfy { $0.path == "/v1/traces" })
        // The advice is one send can follow (it reads no per-signal variable), and the summary names the URL
        // the records went to, not the endpoint as given.
        #expect(!result.stderr.contains("_TRACES_ENDPOINT") && result.stderr.contains("give the base URL"), "\(result.stderr)")
        #expect(result.stdout.contains("at \(collector.endpoint)/v1/traces") && !result.stdout.contains("/v1/logs"), "\(result.stdout)")
    }

    @Test(
        "a TLS file option naming a missing or unreadable file is a usage error naming the option (regression: exit 3, 'collector unreachable')"
    )
    func tlsFileOptionUnreadable() throws {
        let path = Self.framed.appendingPathComponent("traces-mixed.u32be.bin").path
        for (option, file) in [
            ("--certificate", "/nonexistent/ca.pem"), ("--client-key", "/"), ("--client-certificate", "/nonexistent/c.pem"),
        ] {
            let result = try OTLPDumpRunner.run(["send", path, "--endpoint", "https://127.0.0.1:9", option, file])
            #expect(result.status == 64, "\(option): \(result.stderr)")
            #expect(result.stderr.contains(option) && result.stderr.contains(file), "\(result.stderr)")
        }
    }

    @Test(
        "secrets never leave the process: the endpoint's query, --header values (a bare token, too) and user-info appear in no output, whatever the outcome"
    )
    func secretsRedacted() throws {
        // The collector echoes the credential in its error text.
        let collector = try OTLPTestCollector(answers: [
            .init(status: 401, headers: ["Content-Type": "text/plain"], body: Array("who is Bearer SECRET-HEADER?".utf8))
        ])
        defer { collector.removeRecords() }
        let path = Self.framed.appendingPathComponent("traces-mixed.u32be.bin").path
        let runs = [
            ["send", path, "--endpoint", "\(collector.endpoint)/?api_key=SECRET-QUERY", "--header", "authorization=Bearer SECRET-HEADER"],
            ["send", path, "--endpoint", "http://127.0.0.1:9", "--header", "Bearer SECRET-TOKEN"],
            ["send", path, "--endpoint", "http://user:SECRET-PASSWORD@127.0.0.1:9"],
            ["send", path, "--endpoint", "http://user:SECRET-PASSWORD@127.0.0.1:9/v1/traces"],
        ]
        for arguments in runs {
            let result = try OTLPDumpRunner.run(arguments)
            let everything = result.stdout + result.stderr
            #expect(result.status != 0)
            #expect(!everything.contains("SECRET"), "\(arguments): \(everything)")
        }
        collector.stop()
        #expect(collector.requests.first?.headers["authorization"] == "Bearer SECRET-HEADER", "the secret is sent where it belongs")
        // Redaction is for what is printed: the request goes to the URL as given (regression: its query was sent redacted).
        #expect(collector.requests.first?.path == "/v1/traces?api_key=SECRET-QUERY", "\(collector.requests.first?.path ?? "none")")
    }

    @Test("a collector's text is escaped once for the terminal (regression: escaped twice, in the sender and in send)")
    func collectorTextEscapedOnce() throws {
        let collector = try OTLPTestCollector(answers: [
            .init(status: 500, headers: ["Content-Type": "text/plain"], body: Array("boom\n\u{1B}[31m".utf8))
        ])
        defer { collector.removeRecords() }
        let path = OTLPDumpRunner.vectors.appendingPathComponent("traces/app-telemetry.pb").path
        let result = try OTLPDumpRunner.run(["send", path, "--endpoint", collector.endpoint])
        collector.stop()
        #expect(result.status == 3)
        #expect(result.stderr.contains(#"HTTP 500: boom\n\u001b[31m"#), "\(result.stderr)")
        #expect(!result.stderr.contains("\u{1B}"))
    }

    @Test("nobody listening: retried within --timeout, then exit 3, and sending stops")
    func nobodyListening() throws {
        let port = try OTLPFreePort.unused()
        let path = Self.framed.appendingPathComponent("traces-mixed.u32be.bin").path
        let result = try OTLPDumpRunner.run(["send", path, "--endpoint", "http://127.0.0.1:\(port)", "--timeout", "1"])
        #expect(result.status == 3)
        #expect(result.stderr.contains("not sent") && result.stderr.contains("gave up after"))
        #expect(result.stdout.contains("unreachable"))
    }

    @Test("hostile partial-success counts (Int64.max, negative) are clamped: no trap, every record sent, exit 3 (regression: overflow)")
    func hostileRejectedCounts() throws {
        func answer(_ rejected: Int64) -> OTLPTestCollector.Answer {
            .init(
                status: 200, headers: ["Content-Type": "application/json"],
                body: Array(#"{"partialSuccess":{"rejectedSpans":"\#(rejected)","errorMessage":"no"}}"#.utf8))
        }
        let collector = try OTLPTestCollector(answers: [answer(.max), answer(.max), answer(-5)])
        defer { collector.removeRecords() }
        let path = Self.framed.appendingPathComponent("traces-mixed.u32be.bin").path
        let result = try OTLPDumpRunner.run(["send", path, "--endpoint", collector.endpoint])
        collector.stop()
        #expect(result.status == 3, "\(result.stderr)")
        #expect(collector.requests.count == 50)
        #expect(!result.stderr.contains("9223372036854775807") && !result.stderr.contains("-5"))
    }

    @Test(
        "usage errors exit 64",
        arguments: [
            ["--endpoint", "http://127.0.0.1:65536"], ["--endpoint", "http://u:p@127.0.0.1:4318"],
            ["--endpoint", "ftp://example.com"], ["--endpoint", "not a url"], ["--endpoint", "http://x", "--header", "novalue"],
            ["--endpoint", "http://x", "--header", "bad name=1"], ["--endpoint", "http://x", "--timeout", "nan"],
            ["--endpoint", "http://x", "--timeout", "-1"], ["--endpoint", "http://x", "--protocol", "grpc"], [],
        ])
    func usage(arguments: [String]) throws {
        let path = Self.framed.appendingPathComponent("traces-edge.varint.bin").path
        let result = try OTLPDumpRunner.run(["send", path] + arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
    }
}
