import Foundation
import OTLPHTTP
import OTLPTelemetry
import OTLPTestSupport
import OTLPWire
import Testing

private typealias Data_ = OTLPHTTPTestData

/// Store and forward through real HTTP: the scripted collector on loopback, or nobody listening.
@Suite("OTLPSpoolExporter")
struct OTLPSpoolExporterTests {
    static func spool(_ root: String, signal: OTLPSignal, maxBytes: Int = 256 << 20) -> OTLPSpoolConfiguration {
        OTLPSpoolConfiguration(directory: "\(root)/\(signal)", maxBytes: maxBytes, durability: .flush)
    }

    static func root() -> String {
        OTLPTemporaryDirectory.unusedPath("otlp-spool-exporter").path
    }

    @Test(
        "outage: 10,000 spans and 10,000 log records spooled while nobody listens and shut down; the next start delivers all, in order, exactly once"
    )
    func outageThenRestart() throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let spans = Data_.spans(10_000)
        let records = Data_.logRecords(10_000)
        let down = "http://127.0.0.1:\(try OTLPFreePort.unused())"
        let counters = OTLPTelemetryCounters()
        do {
            let spanExporter = OTLPSpoolExporter<OTLPScopedSpan>(
                endpoint: Data_.endpoint(down, timeoutSeconds: 0.5), spool: Self.spool(root, signal: .traces), resource: Data_.resource,
                counters: counters, retryPolicy: Data_.quickRetries, diagnostics: { _ in })
            let logExporter = OTLPSpoolExporter<OTLPScopedLogRecord>(
                endpoint: Data_.endpoint(down, timeoutSeconds: 0.5, signal: .logs), spool: Self.spool(root, signal: .logs),
                resource: Data_.resource, counters: counters, retryPolicy: Data_.quickRetries, diagnostics: { _ in })
            for first in stride(from: 0, to: 10_000, by: 500) {
                #expect(spanExporter.export(Array(spans[first..<first + 500])))
                #expect(logExporter.export(Array(records[first..<first + 500])))
            }
            spanExporter.shutdown()
            logExporter.shutdown()
            #expect(spanExporter.pendingItems == 10_000 && logExporter.pendingItems == 10_000)
        }
        let before = counters.snapshot
        #expect(
            before.spansExported == 0 && before.totalSpansDropped == 0 && before.logRecordsExported == 0
                && before.totalLogRecordsDropped == 0)

        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let restarted = OTLPTelemetryCounters()
        let spanExporter = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint, timeoutSeconds: 60), spool: Self.spool(root, signal: .traces),
            resource: Data_.resource, counters: restarted, diagnostics: { _ in })
        let logExporter = OTLPSpoolExporter<OTLPScopedLogRecord>(
            endpoint: Data_.endpoint(collector.endpoint, timeoutSeconds: 60, signal: .logs), spool: Self.spool(root, signal: .logs),
            resource: Data_.resource, counters: restarted, diagnostics: { _ in })
        // Shutdown drains within the timeout.
        spanExporter.shutdown()
        logExporter.shutdown()
        collector.stop()
        let after = restarted.snapshot
        #expect(after.spansReceived == 10_000 && after.spansExported == 10_000 && after.totalSpansDropped == 0)
        #expect(after.logRecordsReceived == 10_000 && after.logRecordsExported == 10_000 && after.totalLogRecordsDropped == 0)
        #expect(spanExporter.pendingItems == 0 && logExporter.pendingItems == 0)
        let expected = try Data_.canonical(spans) + Data_.canonical(records)
        let arrived = collector.items
        #expect(arrived.count == 20_000)
        // In order per signal, each item once.
        let spansInOrder = arrived.filter { $0.contains("\"signal\": \"traces\"") } == Array(expected[..<10_000])
        let logRecordsInOrder = arrived.filter { $0.contains("\"signal\": \"logs\"") } == Array(expected[10_000...])
        #expect(spansInOrder && logRecordsInOrder)
        let files = try FileManager.default.subpathsOfDirectory(atPath: root).filter { $0.hasSuffix(".u32be.bin") }
        #expect(files.isEmpty, "\(files)")
    }

    @Test(
        "outage across processes: an app spools 10,000 spans and 10,000 log records while nobody listens and exits; its next start, with the collector up, delivers them all, in order, exactly once"
    )
    func outageAcrossProcesses() throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let writer = OTLPProcess.executable("otlp-spool-writer")
        // The second run drains 20,000 items at shutdown: it gets the time for it (shutdownTimeoutSeconds).
        func configuration(endpoint: String, timeoutSeconds: Double) throws -> String {
            let path = "\(root)/config-\(UUID().uuidString).json"
            try Data(
                """
                {"service": {"name": "spool-writer"}, "batch": {"maxQueueSize": 20000, "maxExportBatchSize": 512},
                 "shutdownTimeoutSeconds": \(timeoutSeconds * 2),
                 "otlp": {"endpoint": "\(endpoint)", "timeoutSeconds": \(timeoutSeconds), "spool": {"directory": "\(root)/spool"}}}
                """.utf8
            ).write(to: URL(fileURLWithPath: path))
            return path
        }
        let down = "http://127.0.0.1:\(try OTLPFreePort.unused())"
        let first = try OTLPProcess.run(writer, [try configuration(endpoint: down, timeoutSeconds: 0.5), "10000"])
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.errors.contains("left in"), "the spool keeps what was not delivered: \(first.errors)")
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let second = try OTLPProcess.run(writer, [try configuration(endpoint: collector.endpoint, timeoutSeconds: 60), "0"])
        collector.stop()
        #expect(second.status == 0, "\(second.errors)")
        let arrived = collector.items.compactMap { line -> (signal: String, text: String)? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let signal = object["signal"] as? String, let item = object["item"] as? [String: Any]
            else { return nil }
            let text = signal == "traces" ? item["name"] as? String : (item["body"] as? [String: Any])?["stringValue"] as? String
            return text.map { (signal, $0) }
        }
        let spans = arrived.filter { $0.signal == "traces" }.map(\.text)
        let records = arrived.filter { $0.signal == "logs" }.map(\.text)
        let spansInOrderOnce = spans == (0..<10_000).map { "span \($0)" }
        let recordsInOrderOnce = records == (0..<10_000).map { "record \($0)" }
        #expect(spansInOrderOnce, "\(spans.count) spans arrived")
        #expect(recordsInOrderOnce, "\(records.count) log records arrived")
        let left = try FileManager.default.subpathsOfDirectory(atPath: "\(root)/spool").filter { $0.hasSuffix(".u32be.bin") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test(
        "while the collector is up, batches are uploaded as they are spooled (protobuf, and JSON decoded from the spool); shutdown leaves nothing behind",
        arguments: [OTLPHTTPProtocol.httpProtobuf, .httpJSON])
    func liveUpload(protocol wireProtocol: OTLPHTTPProtocol) throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let counters = OTLPTelemetryCounters()
        let exporter = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint, protocol: wireProtocol), spool: Self.spool(root, signal: .traces),
            resource: Data_.resource,
            counters: counters)
        let spans = Data_.spans(300)
        for first in stride(from: 0, to: 300, by: 100) { #expect(exporter.export(Array(spans[first..<first + 100]))) }
        exporter.shutdown()
        collector.stop()
        let allArrivedInOrder = collector.items == (try Data_.canonical(spans))
        #expect(allArrivedInOrder)
        #expect(counters.snapshot.spansExported == 300 && exporter.pendingItems == 0)
    }

    @Test(
        "a record the collector refuses for its content (400 with an OTLP Status) moves to the quarantine, counted rejected and readable there; the next one goes out"
    )
    func refusedRecordQuarantined() throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let status = OTLPRPCStatus(code: 3, message: "bad span", detailTypeURLs: [])
        let collector = try OTLPTestCollector(answers: [
            .init(status: 400, headers: ["Content-Type": "application/x-protobuf"], body: status.encoded())
        ])
        defer { collector.removeRecords() }
        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let spans = Data_.spans(12)
        let exporter = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint), spool: Self.spool(root, signal: .traces), resource: Data_.resource,
            counters: counters, diagnostics: messages.add)
        exporter.export(Array(spans[..<5]))
        exporter.export(Array(spans[5...]))
        exporter.shutdown()
        collector.stop()
        #expect(counters.snapshot.spansDropped == [.rejected: 5] && counters.snapshot.spansExported == 7)
        #expect(collector.items.count == 7 && exporter.pendingItems == 0)
        #expect(messages.all.contains { $0.contains("HTTP 400: bad span") })
        let quarantine = "\(root)/traces/rejected"
        let kept = try FileManager.default.contentsOfDirectory(atPath: quarantine).filter { $0.hasSuffix(".u32be.bin") }
        #expect(kept == ["00000000000000000001-5.u32be.bin"])
        let inQuarantine = try OTLPTestCollector.canonicalItems(ofFile: "\(quarantine)/\(kept[0])", signal: "traces")
        #expect(inQuarantine == (try Data_.canonical(Array(spans[..<5]))))
    }

    /// A run against a collector that gives `answer` to everything, then a run against one that accepts:
    /// the first keeps every record (nothing deleted, nothing counted dropped, the answer reported), the
    /// second delivers them all once, in order.
    static func keptUntilAccepted(_ answer: OTLPTestCollector.Answer) throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let spans = Data_.spans(30)
        do {
            let refusing = try OTLPTestCollector(answers: Array(repeating: answer, count: 500))
            defer { refusing.removeRecords() }
            let counters = OTLPTelemetryCounters()
            let messages = Messages()
            let exporter = OTLPSpoolExporter<OTLPScopedSpan>(
                endpoint: Data_.endpoint(refusing.endpoint), spool: Self.spool(root, signal: .traces), resource: Data_.resource,
                counters: counters, retryPolicy: Data_.quickRetries, diagnostics: messages.add)
            for first in stride(from: 0, to: 30, by: 10) { exporter.export(Array(spans[first..<first + 10])) }
            exporter.shutdown()
            refusing.stop()
            #expect(!refusing.requests.isEmpty)
            #expect(
                counters.snapshot.spansExported == 0 && counters.snapshot.totalSpansDropped == 0,
                "HTTP \(answer.status): \(counters.snapshot)")
            #expect(exporter.pendingItems == 30, "HTTP \(answer.status)")
            #expect(messages.all.contains { $0.contains("left in") && $0.contains("HTTP \(answer.status)") }, "\(messages.all)")
            #expect(!messages.all.contains { $0.contains("secret") }, "\(messages.all)")
        }
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let counters = OTLPTelemetryCounters()
        let exporter = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint), spool: Self.spool(root, signal: .traces), resource: Data_.resource,
            counters: counters, diagnostics: { _ in })
        exporter.shutdown()
        collector.stop()
        #expect(
            counters.snapshot.spansExported == 30 && counters.snapshot.totalSpansDropped == 0, "HTTP \(answer.status): \(counters.snapshot)"
        )
        #expect(collector.items == (try Data_.canonical(spans)), "HTTP \(answer.status): each span once, in order")
        #expect(exporter.pendingItems == 0)
        #expect(!FileManager.default.fileExists(atPath: "\(root)/traces/rejected"))
    }

    @Test(
        "an endpoint that refuses to talk (401, 403, 404, 405, 407, 301, 415, 431, 500, a 400 that is not OTLP) keeps every record: nothing deleted or counted dropped until the collector answers 200, then everything delivered once, in order",
        arguments: [401, 403, 404, 405, 407, 301, 415, 431, 500, 400])
    func refusalKeepsRecords(status: Int) throws {
        let headers = status == 301 ? ["Location": "https://user:secret@elsewhere.example/v1/traces"] : ["Content-Type": "text/html"]
        try Self.keptUntilAccepted(.init(status: status, headers: headers, body: Array("<html>nope</html>".utf8)))
    }

    @Test("a 413 splits the record into halves sent in turn: every span delivered once, nothing quarantined")
    func tooLargeSplits() throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        // The first record (10 spans) is refused as too large, then its first half (5) too: 2 + 3 + 5 spans arrive.
        let collector = try OTLPTestCollector(answers: [.init(status: 413), .init(status: 413)])
        defer { collector.removeRecords() }
        let counters = OTLPTelemetryCounters()
        let spans = Data_.spans(20)
        let exporter = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint), spool: Self.spool(root, signal: .traces), resource: Data_.resource,
            counters: counters, retryPolicy: Data_.quickRetries, diagnostics: { _ in })
        exporter.export(Array(spans[..<10]))
        exporter.export(Array(spans[10...]))
        exporter.shutdown()
        collector.stop()
        #expect(counters.snapshot.spansExported == 20 && counters.snapshot.totalSpansDropped == 0, "\(counters.snapshot)")
        #expect(collector.items == (try Data_.canonical(spans)))
        #expect(collector.requests.count == 2 + 3 + 1)
    }

    @Test("a single span of over 64 KiB refused as too large (413) moves to the quarantine, counted rejected")
    func tooLargeSingleItemQuarantined() throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let collector = try OTLPTestCollector(answers: [.init(status: 413), .init(status: 413), .init(status: 413)])
        defer { collector.removeRecords() }
        let counters = OTLPTelemetryCounters()
        var spans = Data_.spans(2)
        for index in spans.indices {
            spans[index].span.attributes.append(OTLPAttribute("padding", .string(String(repeating: "p", count: 70 << 10))))
        }
        let exporter = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint), spool: Self.spool(root, signal: .traces), resource: Data_.resource,
            counters: counters, diagnostics: { _ in })
        exporter.export(spans)
        exporter.shutdown()
        collector.stop()
        // 2 spans: 413; span 0: 413 (quarantined); span 1: 413 (quarantined). Then nothing is left.
        #expect(counters.snapshot.spansDropped == [.rejected: 2] && counters.snapshot.spansExported == 0)
        let kept = try FileManager.default.contentsOfDirectory(atPath: "\(root)/traces/rejected").filter { $0.hasSuffix(".u32be.bin") }
            .sorted()
        #expect(kept == ["00000000000000000001-1.u32be.bin", "00000000000000000002-1.u32be.bin"])
    }

    @Test(
        "an endpoint that answers 413 even to a single small span (a proxy's wrong limit) keeps the record: nothing quarantined or dropped (the review's \"413 to everything\")"
    )
    func tooLargeSmallItemKept() throws {
        try Self.keptUntilAccepted(.init(status: 413, headers: ["Content-Type": "text/plain"], body: Array("entity too large".utf8)))
    }

    @Test(
        "a batch over the spool's record limit is split into records that fit, all delivered; a single item over it is dropped as item_too_large (regression: the whole batch was dropped as write_failed)"
    )
    func batchOverRecordLimitSplit() throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let down = "http://127.0.0.1:\(try OTLPFreePort.unused())"
        let counters = OTLPTelemetryCounters()
        // maxBytes 1 MiB: records of at most 128 KiB. 400 spans of about 1 KiB each, and one of 200 KiB.
        var spans = Data_.spans(400)
        for index in spans.indices {
            spans[index].span.attributes.append(OTLPAttribute("padding", .string(String(repeating: "p", count: 1000))))
        }
        var huge = Data_.spans(1, from: 400)[0]
        huge.span.attributes.append(OTLPAttribute("padding", .string(String(repeating: "h", count: 200 << 10))))
        let exporter = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(down, timeoutSeconds: 0.2), spool: Self.spool(root, signal: .traces, maxBytes: 1 << 20),
            resource: Data_.resource,
            counters: counters, retryPolicy: Data_.quickRetries, diagnostics: { _ in })
        let complete = exporter.export(spans + [huge])
        #expect(!complete)
        #expect(counters.snapshot.spansDropped == [.itemTooLarge: 1], "\(counters.snapshot)")
        #expect(exporter.pendingItems == 400)
        exporter.shutdown()
        let tiny = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(down, timeoutSeconds: 0.2), spool: Self.spool(root + "-tiny", signal: .traces, maxBytes: 64 << 10),
            resource: Data_.resource, counters: counters, retryPolicy: Data_.quickRetries, diagnostics: { _ in })
        defer { try? FileManager.default.removeItem(atPath: root + "-tiny") }
        // Far more than maxBytes: the spool holds at most maxBytes, or two files of 32 KiB.
        for _ in 0..<10 { tiny.export(spans) }
        tiny.shutdown()
        let files = try FileManager.default.contentsOfDirectory(atPath: root + "-tiny/traces").filter { $0.hasSuffix(".u32be.bin") }
        let total = try files.reduce(0) {
            $0 + (try FileManager.default.attributesOfItem(atPath: root + "-tiny/traces/" + $1)[.size] as? Int ?? 0)
        }
        #expect(total <= 64 << 10, "\(files): \(total) bytes")
    }

    @Test("a second exporter on the same spool directory fails clearly and counts its items write_failed")
    func secondProcessRefused() throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let down = "http://127.0.0.1:\(try OTLPFreePort.unused())"
        let first = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(down, timeoutSeconds: 0.2), spool: Self.spool(root, signal: .traces), resource: Data_.resource,
            diagnostics: { _ in })
        let messages = Messages()
        let counters = OTLPTelemetryCounters()
        let second = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(down, timeoutSeconds: 0.2), spool: Self.spool(root, signal: .traces), resource: Data_.resource,
            counters: counters, diagnostics: messages.add)
        #expect(second.openError?.errno == EWOULDBLOCK)
        #expect(messages.all.first?.contains("being written by") == true, "\(messages.all)")
        #expect(!second.export(Data_.spans(3)))
        #expect(counters.snapshot.spansDropped == [.writeFailed: 3])
        #expect(first.export(Data_.spans(3)))
        second.shutdown()
        first.shutdown()
        #expect(first.pendingItems == 3)
    }

    @Test("over maxBytes while the collector is down: the oldest items are dropped and counted spool_full; the rest is delivered later")
    func spoolFull() throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let down = "http://127.0.0.1:\(try OTLPFreePort.unused())"
        let counters = OTLPTelemetryCounters()
        let exporter = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(down, timeoutSeconds: 0.2), spool: Self.spool(root, signal: .traces, maxBytes: 64 << 10),
            resource: Data_.resource, counters: counters, diagnostics: { _ in })
        let spans = Data_.spans(2_000)
        for first in stride(from: 0, to: 2_000, by: 50) { exporter.export(Array(spans[first..<first + 50])) }
        exporter.shutdown()
        let dropped = counters.snapshot.spansDropped[.spoolFull] ?? 0
        #expect(dropped > 0 && dropped % 50 == 0)
        #expect(dropped + exporter.pendingItems == 2_000)

        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let restarted = OTLPTelemetryCounters()
        let drain = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint), spool: Self.spool(root, signal: .traces, maxBytes: 64 << 10),
            resource: Data_.resource, counters: restarted, diagnostics: { _ in })
        drain.shutdown()
        collector.stop()
        // The file in flight when the spool filled is kept (its record was being sent); the others go oldest first.
        let arrived = collector.items
        #expect(arrived.count == 2_000 - dropped)
        let inOrder = Self.isInOrder(arrived, within: try Data_.canonical(spans))
        #expect(inOrder)
        let all = try Data_.canonical(spans)
        let newestKept = arrived.suffix(50) == all.suffix(50)
        #expect(newestKept, "the newest are kept")
    }

    @Test(
        "a flapping collector (runs of 502s and 503s, some longer than the timeout, and 200s) under a steady writer: nothing lost or sent twice, in order, the spool bounded"
    )
    func flappingCollector() throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        var answers: [OTLPTestCollector.Answer] = []
        for round in 0..<8 {
            // Down for longer than one upload's timeout every other round: the uploader backs off and comes back.
            answers += Array(repeating: OTLPTestCollector.Answer(status: round % 2 == 0 ? 503 : 502), count: round % 2 == 0 ? 2 : 12)
            answers += Array(repeating: OTLPTestCollector.Answer(status: 200), count: 2)
        }
        let collector = try OTLPTestCollector(answers: answers)
        defer { collector.removeRecords() }
        let counters = OTLPTelemetryCounters()
        let spool = Self.spool(root, signal: .traces, maxBytes: 1 << 20)
        let exporter = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint, timeoutSeconds: 0.3), spool: spool, resource: Data_.resource, counters: counters,
            retryPolicy: Data_.quickRetries, diagnostics: { _ in })
        let spans = Data_.spans(2_000)
        var largest = 0
        for first in stride(from: 0, to: 2_000, by: 20) {
            #expect(exporter.export(Array(spans[first..<first + 20])))
            largest = max(largest, Self.spoolBytes(spool.directory))
        }
        // The uploader may be backing off: a restart (as after a crash) drains without waiting.
        exporter.shutdown()
        let drain = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint, timeoutSeconds: 30), spool: spool, resource: Data_.resource, counters: counters,
            retryPolicy: Data_.quickRetries, diagnostics: { _ in })
        drain.shutdown()
        collector.stop()
        #expect(counters.snapshot.totalSpansDropped == 0)
        #expect(largest <= spool.maxBytes)
        let arrivedInOrderOnce = collector.items == (try Data_.canonical(spans))
        #expect(arrivedInOrderOnce)
        #expect(drain.pendingItems == 0)
    }

    @Test(
        "a full disk (a 64 KiB tmpfs) while spooling: the batches that do not fit are counted write_failed, no torn record stays; with space back, spooling goes on and everything written is delivered"
    )
    func diskFull() throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        guard mount("tmpfs", root, "tmpfs", 0, "size=64k") == 0 else {
            Issue.record("cannot mount a tmpfs (needs root): \(String(cString: strerror(errno)))")
            return
        }
        defer { umount(root) }
        let down = "http://127.0.0.1:\(try OTLPFreePort.unused())"
        let counters = OTLPTelemetryCounters()
        let messages = Messages()
        let spool = Self.spool(root, signal: .traces, maxBytes: 8 << 20)
        let writer = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(down, timeoutSeconds: 0.2), spool: spool, resource: Data_.resource, counters: counters,
            diagnostics: messages.add)
        let spans = Data_.spans(4_000)
        var written: [OTLPScopedSpan] = []
        var failed = 0
        for first in stride(from: 0, to: 2_000, by: 50) {
            let batch = Array(spans[first..<first + 50])
            if writer.export(batch) { written += batch } else { failed += 50 }
        }
        #expect(failed > 0 && !written.isEmpty, "the 64 KiB file system fills up: \(written.count) written")
        #expect(counters.snapshot.spansDropped == [.writeFailed: failed])
        #expect(messages.all.contains { $0.contains("No space left on device") }, "\(messages.all.prefix(3))")
        // What is on disk is whole records, exactly the batches reported written.
        #expect(try Self.records(in: spool.directory).count == written.count / 50)
        // Space returns: spooling goes on by itself.
        #expect(mount("tmpfs", root, "tmpfs", UInt(MS_REMOUNT), "size=8m") == 0, "\(String(cString: strerror(errno)))")
        for first in stride(from: 2_000, to: 4_000, by: 50) {
            let batch = Array(spans[first..<first + 50])
            #expect(writer.export(batch))
            written += batch
        }
        writer.shutdown()
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let drain = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint), spool: spool, resource: Data_.resource, counters: counters, diagnostics: { _ in })
        drain.shutdown()
        collector.stop()
        let writtenArrivedInOrderOnce = collector.items == (try Data_.canonical(written))
        #expect(writtenArrivedInOrderOnce)
        #expect(drain.pendingItems == 0 && drain.damagedRecords == 0)
    }

    @Test(
        "gzip records: stored compressed, sent as stored to a gzip endpoint, decompressed for a plain or JSON one; records a plain run left are read on",
        arguments: [(OTLPHTTPProtocol.httpProtobuf, OTLPCompression.gzip), (.httpProtobuf, .none), (.httpJSON, .gzip)])
    func gzipRecords(protocol wireProtocol: OTLPHTTPProtocol, compression: OTLPCompression) throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let down = "http://127.0.0.1:\(try OTLPFreePort.unused())"
        let spans = Data_.spans(300)
        // A run with plain records, then one with gzip records, while nobody listens.
        for (run, gzip) in [(0, false), (1, true), (2, true)] {
            var spool = Self.spool(root, signal: .traces)
            spool.gzip = gzip
            let exporter = OTLPSpoolExporter<OTLPScopedSpan>(
                endpoint: Data_.endpoint(down, timeoutSeconds: 0.2), spool: spool, resource: Data_.resource, diagnostics: { _ in })
            #expect(exporter.export(Array(spans[run * 100..<run * 100 + 100])))
            exporter.shutdown()
        }
        let stored = try Self.records(in: "\(root)/traces")
        #expect(stored.map { $0.starts(with: [0x1F, 0x8B]) } == [false, true, true])
        #expect(stored[1].count * 3 < stored[0].count, "gzip records are several times smaller: \(stored.map(\.count))")
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let counters = OTLPTelemetryCounters()
        var spool = Self.spool(root, signal: .traces)
        spool.gzip = true
        let drain = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint, protocol: wireProtocol, compression: compression), spool: spool,
            resource: Data_.resource, counters: counters, diagnostics: { _ in })
        drain.shutdown()
        collector.stop()
        let arrivedInOrderOnce = collector.items == (try Data_.canonical(spans))
        #expect(arrivedInOrderOnce)
        #expect(counters.snapshot.spansExported == 300 && drain.pendingItems == 0)
        if wireProtocol == .httpProtobuf && compression == .gzip {
            // The compressed records went out byte for byte as stored.
            #expect(collector.requests.map(\.body).suffix(2) == stored.suffix(2))
        }
    }

    @Test("a gzip record damaged on disk is skipped and counted; the records after it are delivered")
    func damagedGzipRecord() throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let down = "http://127.0.0.1:\(try OTLPFreePort.unused())"
        var spool = Self.spool(root, signal: .traces)
        spool.gzip = true
        let writer = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(down, timeoutSeconds: 0.2), spool: spool, resource: Data_.resource, diagnostics: { _ in })
        #expect(writer.export(Data_.spans(10)))
        #expect(writer.export(Data_.spans(10, from: 10)))
        writer.shutdown()
        // One byte of the first record's compressed data flipped (past the 4-byte prefix and 10-byte gzip header).
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: "\(root)/traces").first { $0.hasSuffix(".u32be.bin") })
        let handle = try #require(FileHandle(forUpdatingAtPath: "\(root)/traces/\(file)"))
        try handle.seek(toOffset: 20)
        let byte = try #require(try handle.read(upToCount: 1)).first!
        try handle.seek(toOffset: 20)
        try handle.write(contentsOf: [byte ^ 0x5A])
        try handle.close()
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let messages = Messages()
        let counters = OTLPTelemetryCounters()
        let drain = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint), spool: spool, resource: Data_.resource, counters: counters,
            diagnostics: messages.add)
        drain.shutdown()
        collector.stop()
        let secondArrived = collector.items == (try Data_.canonical(Data_.spans(10, from: 10)))
        #expect(secondArrived)
        #expect(drain.damagedRecords == 1 && drain.pendingItems == 0)
        #expect(messages.all.contains { $0.contains("unreadable and skipped") && $0.contains("(record)") }, "\(messages.all)")
        // The damaged record's items are counted lost, so the counts add up (regression: they vanished).
        let snapshot = counters.snapshot
        #expect(snapshot.spansReceived == 20 && snapshot.spansExported == 10 && snapshot.spansDropped == [.spoolDamaged: 10])
    }

    @Test(
        "records no exporter writes: a gzip record of two members is skipped and its items counted lost; an empty one is acknowledged without a request"
    )
    func foreignRecords() throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let request = { (first: Int) in
            OTLPEncoder().withEncoded(OTLPScopedSpan.request(Data_.spans(10, from: first), resource: Data_.resource)) { Array($0) }
        }
        let twoMembers =
            try request(0).prefix(40).withUnsafeBytes { try OTLPGzip.compress($0) }
            + (try request(0).dropFirst(40).withUnsafeBytes { try OTLPGzip.compress($0) })
        let empty = try [UInt8]().withUnsafeBytes { try OTLPGzip.compress($0) }
        let good = try request(10).withUnsafeBytes { try OTLPGzip.compress($0) }
        var file: [UInt8] = []
        for record in [twoMembers, empty, good] {
            file += withUnsafeBytes(of: UInt32(record.count).bigEndian, Array.init) + record
        }
        try FileManager.default.createDirectory(atPath: "\(root)/traces", withIntermediateDirectories: true)
        try Data(file).write(to: URL(fileURLWithPath: "\(root)/traces/00000000000000000001-20.u32be.bin"))
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let counters = OTLPTelemetryCounters()
        let drain = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint(collector.endpoint), spool: Self.spool(root, signal: .traces), resource: Data_.resource,
            counters: counters, diagnostics: { _ in })
        drain.shutdown()
        collector.stop()
        #expect(collector.requests.count == 1)
        let goodArrived = collector.items == (try Data_.canonical(Data_.spans(10, from: 10)))
        #expect(goodArrived)
        #expect(counters.snapshot.spansExported == 10 && counters.snapshot.spansDropped == [.spoolDamaged: 10])
        #expect(drain.pendingItems == 0 && drain.damagedRecords == 1)
    }

    /// The records of a spool directory's files, oldest first.
    static func records(in directory: String) throws -> [[UInt8]] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".u32be.bin") }.sorted()
        var records: [[UInt8]] = []
        for name in names {
            records += OTLPFramedRecords.u32be(Array(try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(name)"))))
        }
        return records
    }

    @Test(
        "a collector flapping every 200 ms (its port refusing connections and every open one cut, every other 200 ms) under a steady writer: every item arrives, first arrivals in order, duplicates at most one record per cut connection (and the restart), the spool bounded"
    )
    func collectorUpAndDownEvery200Milliseconds() throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let proxy = try OTLPFlappingProxy(targetPort: collector.port, periodSeconds: 0.2)
        let counters = OTLPTelemetryCounters()
        let spool = Self.spool(root, signal: .traces, maxBytes: 1 << 20)
        let endpoint = Data_.endpoint("http://127.0.0.1:\(proxy.port)", timeoutSeconds: 1)
        let writer = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: endpoint, spool: spool, resource: Data_.resource, counters: counters, retryPolicy: Data_.quickRetries,
            diagnostics: { _ in })
        let spans = Data_.spans(3_200)
        var largest = 0
        // 16 phases (8 up, 8 down), 10 batches of 20 spans in each, paced by the proxy's own changes.
        for phase in 0..<16 {
            proxy.waitForTransitions(1)
            for batch in 0..<10 {
                let first = (phase * 10 + batch) * 20
                #expect(writer.export(Array(spans[first..<first + 20])))
            }
            largest = max(largest, Self.spoolBytes(spool.directory))
        }
        proxy.stayUp()
        writer.shutdown()
        // What the shutdown's timeout left (the uploader may have been backing off) goes out at the next start.
        let drain = OTLPSpoolExporter<OTLPScopedSpan>(
            endpoint: Data_.endpoint("http://127.0.0.1:\(proxy.port)", timeoutSeconds: 30), spool: spool, resource: Data_.resource,
            counters: counters, diagnostics: { _ in })
        drain.shutdown()
        proxy.stop()
        collector.stop()
        #expect(proxy.transitions >= 16 && proxy.accepted > 0)
        #expect(counters.snapshot.spanExportRetries > 0, "the uploads met the collector down")
        #expect(counters.snapshot.spansExported == 3_200 && counters.snapshot.totalSpansDropped == 0)
        #expect(drain.pendingItems == 0 && largest <= spool.maxBytes)
        let expected = try Data_.canonical(spans)
        let arrived = collector.items
        var firstArrivals: [String] = []
        var seen = Set<String>()
        for item in arrived where seen.insert(item).inserted { firstArrivals.append(item) }
        let everyItemInOrder = firstArrivals == expected
        #expect(everyItemInOrder, "\(firstArrivals.count) of \(expected.count) distinct items arrived")
        // A record arrives twice only when its answer was lost: a connection cut while the collector worked
        // on it, or the first exporter's shutdown ending the wait for it (the next start sends it again).
        #expect(
            arrived.count - expected.count <= 20 * (proxy.cut + 1),
            "\(arrived.count - expected.count) duplicates, \(proxy.cut) connections cut")
    }

    static func spoolBytes(_ directory: String) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).reduce(0) { total, name in
            total + ((try? FileManager.default.attributesOfItem(atPath: "\(directory)/\(name)")[.size] as? Int) ?? 0)
        }
    }

    /// Whether `items` appear in `all` in the same order (each once).
    static func isInOrder(_ items: [String], within all: [String]) -> Bool {
        var position = all.startIndex
        for item in items {
            guard let found = all[position...].firstIndex(of: item) else { return false }
            position = found + 1
        }
        return true
    }
}
