import Foundation
import OTLPHTTP
import OTLPTelemetry
import OTLPTestSupport
import OTLPWire
import Testing

/// `otlp-dump send --spool` and `--checkpoint`: the operator's commands, killed at random moments and run again.
@Suite("otlp-dump send --spool and --checkpoint")
struct SendSpoolTests {
    static let resource = OTLPResource(attributes: [OTLPAttribute("service.name", "send-spool-tests")])
    static let scope = OTLPInstrumentationScope(name: "send-spool-tests")

    /// `count` requests of `perRecord` spans (or log records), distinct items, encoded.
    static func requests(_ signal: OTLPSignal, count: Int, perRecord: Int) -> [[UInt8]] {
        let encoder = OTLPEncoder()
        return (0..<count).map { record in
            let indices = (record * perRecord)..<((record + 1) * perRecord)
            if signal == .traces {
                let spans = indices.map { index in
                    OTLPScopedSpan(
                        scope: scope,
                        span: OTLPSpan(
                            traceID: OTLPTraceID(high: 1, low: UInt64(index + 1)), spanID: OTLPSpanID(UInt64(index + 1)),
                            name: "span \(index)",
                            startTimeUnixNano: 1_000, endTimeUnixNano: 2_000))
                }
                return encoder.withEncoded(OTLPScopedSpan.request(spans, resource: resource)) { Array($0) }
            }
            let records = indices.map { index in
                OTLPScopedLogRecord(
                    scope: scope, record: OTLPLogRecord(timeUnixNano: 5_000, severity: .info, body: .string("record \(index)")))
            }
            return encoder.withEncoded(OTLPScopedLogRecord.request(records, resource: resource)) { Array($0) }
        }
    }

    /// `requests` as one u32be file at `path`.
    static func writeFile(_ requests: [[UInt8]], to path: String) throws {
        var bytes: [UInt8] = []
        for request in requests {
            let length = request.count
            bytes += [UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + request
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Requests the collector has recorded so far (each recorded before it is answered).
    static func requestCount(_ collector: OTLPTestCollector) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: collector.directory.path)) ?? []).count {
            $0.hasSuffix(".json") && $0 != "script.json"
        }
    }

    /// Runs otlp-dump with `arguments` and SIGKILLs it once the collector has recorded `requests` more
    /// requests (or it has exited by itself); returns whether it was killed.
    static func runAndKill(_ arguments: [String], collector: OTLPTestCollector, afterRequests requests: Int) throws -> Bool {
        let process = Process()
        process.executableURL = OTLPDumpRunner.binary
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let start = requestCount(collector)
        try process.run()
        // Waiting on another process's progress, polled.
        while process.isRunning && requestCount(collector) < start + requests { usleep(1_000) }
        let killed = process.isRunning
        if killed { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return killed
    }

    /// Whether every `expected` item arrived at least once; returns the number of extra arrivals.
    static func duplicates(_ arrived: [String], expected: [String]) -> Int? {
        var counts: [String: Int] = [:]
        for item in arrived { counts[item, default: 0] += 1 }
        for item in expected where counts[item, default: 0] == 0 { return nil }
        return arrived.count - Set(arrived).count
    }

    @Test(
        "send --spool, SIGKILLed 20 times at random moments and run again: nothing lost, at most one record sent twice per kill, the spool empty at the end"
    )
    func spoolKilledAndRerun() throws {
        let root = OTLPTemporaryDirectory.unusedPath("send-spool").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let perRecord = 10
        let traces = Self.requests(.traces, count: 240, perRecord: perRecord)
        let logs = Self.requests(.logs, count: 60, perRecord: perRecord)
        for (signal, requests) in [(OTLPSignal.traces, traces), (.logs, logs)] {
            let queue = try OTLPSpoolQueue(directory: "\(root)/\(signal)", signal: signal, maxBytes: 16 << 20, durability: .flush)
            for request in requests { _ = try queue.append(request, items: perRecord) }
            // Not released: the last file stays open, as an app killed while spooling leaves it.
        }
        let expectedFile = "\(root)/expected.u32be.bin"
        try Self.writeFile(traces, to: expectedFile)
        let logsFile = "\(root)/expected-logs.u32be.bin"
        try Self.writeFile(logs, to: logsFile)
        let expected =
            try OTLPTestCollector.canonicalItems(ofFile: expectedFile, signal: "traces")
            + OTLPTestCollector.canonicalItems(ofFile: logsFile, signal: "logs")

        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let arguments = ["send", "--spool", root, "--endpoint", collector.endpoint, "--compression", "none"]
        var generator = SystemRandomNumberGenerator()
        var kills = 0
        for _ in 0..<20 {
            if try Self.runAndKill(arguments, collector: collector, afterRequests: Int.random(in: 1...8, using: &generator)) { kills += 1 }
        }
        let final = try OTLPDumpRunner.run(arguments)
        collector.stop()
        #expect(final.status == 0, "\(final.stderr)")
        #expect(kills == 20)
        let arrived = collector.items
        let extra = Self.duplicates(arrived, expected: expected)
        #expect(extra != nil, "every item arrived")
        #expect((extra ?? .max) <= kills * perRecord, "at most one record again per kill: \(extra ?? -1) extra items")
        #expect(Set(arrived) == Set(expected))
        let left = try FileManager.default.subpathsOfDirectory(atPath: root).filter {
            $0.hasSuffix(".u32be.bin") && !$0.hasPrefix("expected")
        }
        #expect(left.isEmpty, "\(left)")
    }

    @Test("send FILE --checkpoint CP: killed part-way and run again, it resumes after the last answered record; a third run sends nothing")
    func checkpointResumes() throws {
        let root = OTLPTemporaryDirectory.unusedPath("send-checkpoint").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let requests = Self.requests(.traces, count: 100, perRecord: 5)
        let file = "\(root)/traces.u32be.bin"
        try Self.writeFile(requests, to: file)
        let expected = try OTLPTestCollector.canonicalItems(ofFile: file, signal: "traces")
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let checkpoint = "\(root)/checkpoint"
        let arguments = ["send", file, "--endpoint", collector.endpoint, "--checkpoint", checkpoint]
        #expect(try Self.runAndKill(arguments, collector: collector, afterRequests: 30))
        let second = try OTLPDumpRunner.run(arguments)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("answered in an earlier run skipped"), "\(second.stdout)")
        let afterTwo = Self.requestCount(collector)
        #expect(afterTwo <= 101, "at most the record in flight sent again: \(afterTwo) requests")
        let third = try OTLPDumpRunner.run(arguments)
        #expect(third.status == 0)
        #expect(Self.requestCount(collector) == afterTwo, "nothing sent again")
        #expect(third.stdout.contains("100 records answered in an earlier run skipped"), "\(third.stdout)")
        collector.stop()
        #expect(Set(collector.items) == Set(expected))
        #expect((Self.duplicates(collector.items, expected: expected) ?? .max) <= 5)
    }

    @Test("a spool another process holds: exit 2 naming the holder; --spool with files or --checkpoint: usage errors")
    func refusals() throws {
        let root = OTLPTemporaryDirectory.unusedPath("send-spool-held").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let queue = try OTLPSpoolQueue(directory: "\(root)/traces", signal: .traces, maxBytes: 16 << 20, durability: .flush)
        _ = try queue.append(Self.requests(.traces, count: 1, perRecord: 1)[0], items: 1)
        let held = try OTLPDumpRunner.run(["send", "--spool", root, "--endpoint", "http://127.0.0.1:9"])
        #expect(held.status == 2)
        #expect(held.stderr.contains("being written by"), "\(held.stderr)")
        queue.release()
        #expect(try OTLPDumpRunner.run(["send", "--spool", root, "some.bin", "--endpoint", "http://127.0.0.1:9"]).status == 64)
        #expect(try OTLPDumpRunner.run(["send", "--spool", root, "--checkpoint", "cp", "--endpoint", "http://127.0.0.1:9"]).status == 64)
    }

    @Test(
        "--spool: a path that is not a spool directory is exit 2 (regression: \"accepted 0 records\", exit 0); a record refused for its content (400 with an OTLP Status) is reported as not accepted and kept in the quarantine, exit 3 (regression: counted as accepted)"
    )
    func spoolPathAndRefusals() throws {
        let root = OTLPTemporaryDirectory.unusedPath("send-spool-refused").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for path in ["/no/such/spool", "/etc/hostname"] {
            let result = try OTLPDumpRunner.run(["send", "--spool", path, "--endpoint", "http://127.0.0.1:9"])
            #expect(result.status == 2 && result.stderr.contains("not a spool directory"), "\(result.stderr)")
        }
        let queue = try OTLPSpoolQueue(directory: "\(root)/traces", signal: .traces, maxBytes: 16 << 20, durability: .flush)
        for request in Self.requests(.traces, count: 2, perRecord: 3) { _ = try queue.append(request, items: 3) }
        queue.release()
        let inner = try OTLPDumpRunner.run(["send", "--spool", "\(root)/traces", "--endpoint", "http://127.0.0.1:9"])
        #expect(inner.status == 2 && inner.stderr.contains("give the spool directory"), "\(inner.stderr)")
        let status = OTLPRPCStatus(code: 3, message: "bad \u{1B}[31mred", detailTypeURLs: [])
        let collector = try OTLPTestCollector(answers: [
            .init(status: 400, headers: ["Content-Type": "application/json"], body: status.jsonEncoded())
        ])
        defer { collector.removeRecords() }
        let result = try OTLPDumpRunner.run(["send", "--spool", root, "--endpoint", collector.endpoint])
        collector.stop()
        #expect(result.status == 3)
        #expect(
            result.stdout.contains("accepted 1 records (3 spans")
                && result.stdout.contains("not accepted: 1 records (3 items), 3 items of them kept in the spool's rejected/"),
            "\(result.stdout)")
        #expect(result.stderr.contains(#"HTTP 400: bad \u{1B}[31mred"#), "escaped once: \(result.stderr)")
        #expect(collector.items.count == 3)
        let kept = try FileManager.default.contentsOfDirectory(atPath: "\(root)/traces/rejected").filter { $0.hasSuffix(".u32be.bin") }
        #expect(kept.count == 1)
        let shown = try OTLPDumpRunner.run(["stats", "\(root)/traces/rejected/\(kept[0])"])
        #expect(shown.status == 0 && shown.stdout.contains("3"), "the quarantine is readable: \(shown.stdout) \(shown.stderr)")
    }

    @Test(
        "--spool against an endpoint that refuses to talk (401, 404, 500, a redirect, a 400 that is not OTLP): exit 3, every record kept and nothing quarantined; run again when it accepts: everything delivered once (regression: one run emptied the spool)",
        arguments: [401, 404, 500, 301, 400])
    func spoolKeptOnRefusal(statusCode: Int) throws {
        let root = OTLPTemporaryDirectory.unusedPath("send-spool-kept").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for signal in OTLPSignal.sdkSignals {
            let queue = try OTLPSpoolQueue(directory: "\(root)/\(signal)", signal: signal, maxBytes: 16 << 20, durability: .flush)
            for request in Self.requests(signal, count: 4, perRecord: 5) { _ = try queue.append(request, items: 5) }
            queue.release()
        }
        let before = try FileManager.default.subpathsOfDirectory(atPath: root).sorted()
        let refusing = try OTLPTestCollector(
            answers: Array(
                repeating: .init(status: statusCode, headers: ["Content-Type": "text/html"], body: Array("<h1>no</h1>".utf8)), count: 50))
        defer { refusing.removeRecords() }
        let refused = try OTLPDumpRunner.run([
            "send", "--spool", root, "--endpoint", refusing.endpoint, "--header", "authorization=Bearer SECRET-TOKEN",
        ])
        refusing.stop()
        #expect(refused.status == 3, "\(refused.stderr)")
        #expect(refused.stderr.contains("HTTP \(statusCode)") && refused.stderr.contains("stopping"), "\(refused.stderr)")
        #expect(!(refused.stderr + refused.stdout).contains("SECRET-TOKEN"))
        #expect(refusing.requests.count == 1, "stops at the first refusal")
        #expect(try FileManager.default.subpathsOfDirectory(atPath: root).sorted() == before, "nothing deleted or moved")
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let accepted = try OTLPDumpRunner.run(["send", "--spool", root, "--endpoint", collector.endpoint])
        collector.stop()
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.stdout.contains("accepted 8 records (20 spans, 20 log records"), "\(accepted.stdout)")
        #expect(collector.items.count == 40 && Set(collector.items).count == 40)
    }

    @Test("--checkpoint held by another run, or not writable: exit 2 before anything is sent (regression: a record sent, then failure)")
    func checkpointRefusedUpFront() throws {
        let root = OTLPTemporaryDirectory.unusedPath("send-checkpoint-held").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let file = "\(root)/traces.u32be.bin"
        try Self.writeFile(Self.requests(.traces, count: 3, perRecord: 1), to: file)
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let checkpoint = "\(root)/cp"
        let held = try OTLPOutputLock(outputPath: checkpoint)
        let busy = try OTLPDumpRunner.run(["send", file, "--endpoint", collector.endpoint, "--checkpoint", checkpoint])
        #expect(busy.status == 2 && busy.stderr.contains("being written by"), "\(busy.stderr)")
        _ = held
        for bad in ["\(root)/missing/cp", "/dev/null", root] {
            let unwritable = try OTLPDumpRunner.run(["send", file, "--endpoint", collector.endpoint, "--checkpoint", bad])
            #expect(unwritable.status == 2, "\(bad): \(unwritable.stderr)")
        }
        #expect(
            FileManager.default.fileExists(atPath: "/dev/null")
                && (try? FileManager.default.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType) == .typeCharacterSpecial)
        collector.stop()
        #expect(Self.requestCount(collector) == 0)
    }

    @Test(
        "send --spool counts a partial success as send FILE does: the request's items accepted, the rejected among them apart (regression: only the accepted part was counted)"
    )
    func partialSuccessCounted() throws {
        let root = OTLPTemporaryDirectory.unusedPath("send-spool-partial").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let queue = try OTLPSpoolQueue(directory: "\(root)/traces", signal: .traces, maxBytes: 16 << 20, durability: .flush)
        for request in Self.requests(.traces, count: 2, perRecord: 3) { _ = try queue.append(request, items: 3) }
        queue.release()
        let partial = OTLPExportResponse(rejectedItems: 1, errorMessage: "one too old")
        let collector = try OTLPTestCollector(answers: [
            .init(status: 200, headers: ["Content-Type": "application/x-protobuf"], body: partial.encoded(for: .traces))
        ])
        defer { collector.removeRecords() }
        let result = try OTLPDumpRunner.run(["send", "--spool", root, "--endpoint", collector.endpoint])
        collector.stop()
        #expect(result.status == 3)
        #expect(result.stdout.contains("accepted 2 records (6 spans") && result.stdout.contains("rejected 1 items"), "\(result.stdout)")
    }
}
