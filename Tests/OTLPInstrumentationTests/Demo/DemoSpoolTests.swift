import Foundation
import OTLPHTTP
import OTLPTelemetry
import OTLPTestSupport
import OTLPWire
import Testing

/// `otlpwire-demo --config FILE` with `otlp.spool`: the app's uploader, as a real process, killed and restarted.
@Suite("otlpwire-demo with a spool")
struct DemoSpoolTests {
    static let scope = OTLPInstrumentationScope(name: "backlog")

    static func configuration(endpoint: String, spool: String) -> Data {
        Data(#"{ "otlp": { "endpoint": "\#(endpoint)", "timeoutSeconds": 5, "spool": { "directory": "\#(spool)" } } }"#.utf8)
    }

    @Test("nobody listening: the demo leaves its telemetry in the spool (exit 0); the next run delivers it and its own")
    func outageThenNextRun() throws {
        let directory = try OTLPTemporaryDirectory.make("demo-spool")
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("config.json")
        let spool = directory.appendingPathComponent("spool").path
        try Self.configuration(endpoint: "http://127.0.0.1:\(try OTLPFreePort.unused())", spool: spool).write(to: config)
        let first = try OTLPProcess.run(OTLPProcess.executable("otlpwire-demo"), ["--config", config.path, "out1"], in: directory)
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.output.contains("wait in the spool"), "\(first.output)")
        let spooled = try FileManager.default.subpathsOfDirectory(atPath: spool).filter { $0.hasSuffix(".u32be.bin") }
        #expect(spooled.count == 2)

        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        try Self.configuration(endpoint: collector.endpoint, spool: spool).write(to: config)
        let second = try OTLPProcess.run(OTLPProcess.executable("otlpwire-demo"), ["--config", config.path, "out2"], in: directory)
        collector.stop()
        #expect(second.status == 0, "\(second.errors)")
        var written: [String] = []
        for run in ["out1", "out2"] {
            written += try OTLPTestCollector.canonicalItems(
                ofFile: directory.appendingPathComponent("\(run)/traces.u32be.bin").path, signal: "traces")
            written += try OTLPTestCollector.canonicalItems(
                ofFile: directory.appendingPathComponent("\(run)/logs.u32be.bin.gz").path, signal: "logs")
        }
        #expect(collector.items.sorted() == written.sorted(), "both runs' telemetry arrived, once")
        let left = try FileManager.default.subpathsOfDirectory(atPath: spool).filter { $0.hasSuffix(".u32be.bin") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test(
        "the uploading app SIGKILLed at 20 random moments and started again: every spooled item arrives, at most one record twice per kill")
    func uploaderKilled() throws {
        let directory = try OTLPTemporaryDirectory.make("demo-spool-kill")
        defer { try? FileManager.default.removeItem(at: directory) }
        let spool = directory.appendingPathComponent("spool").path
        // A backlog an earlier run left: 250 records of 10 spans.
        let perRecord = 10
        let encoder = OTLPEncoder()
        let resource = OTLPResource(attributes: [OTLPAttribute("service.name", "backlog")])
        var expectedFile: [UInt8] = []
        do {
            let queue = try OTLPSpoolQueue(directory: "\(spool)/traces", signal: .traces, maxBytes: 128 << 20, durability: .flush)
            for record in 0..<250 {
                let spans = (record * perRecord..<(record + 1) * perRecord).map { index in
                    OTLPScopedSpan(
                        scope: Self.scope,
                        span: OTLPSpan(
                            traceID: OTLPTraceID(high: 9, low: UInt64(index + 1)), spanID: OTLPSpanID(UInt64(index + 1)),
                            name: "backlog \(index)",
                            startTimeUnixNano: 1, endTimeUnixNano: 2))
                }
                let request = encoder.withEncoded(OTLPScopedSpan.request(spans, resource: resource)) { Array($0) }
                _ = try queue.append(request, items: perRecord)
                let length = request.count
                expectedFile +=
                    [UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + request
            }
            queue.release()
        }
        let expectedPath = directory.appendingPathComponent("backlog.u32be.bin").path
        try Data(expectedFile).write(to: URL(fileURLWithPath: expectedPath))
        let expected = try OTLPTestCollector.canonicalItems(ofFile: expectedPath, signal: "traces")

        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        let config = directory.appendingPathComponent("config.json")
        try Self.configuration(endpoint: collector.endpoint, spool: spool).write(to: config)
        func requestCount() -> Int {
            ((try? FileManager.default.contentsOfDirectory(atPath: collector.directory.path)) ?? []).count {
                $0.hasSuffix(".json") && $0 != "script.json"
            }
        }
        var kills = 0
        for run in 0..<20 {
            let process = Process()
            process.executableURL = OTLPProcess.executable("otlpwire-demo")
            process.arguments = ["--config", config.path, "out\(run)"]
            process.currentDirectoryURL = directory
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let target = requestCount() + Int.random(in: 1...8)
            try process.run()
            // Waiting on another process's progress, polled.
            while process.isRunning && requestCount() < target { usleep(1_000) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                kills += 1
            }
            process.waitUntilExit()
        }
        let final = try OTLPProcess.run(OTLPProcess.executable("otlpwire-demo"), ["--config", config.path, "final"], in: directory)
        #expect(final.status == 0, "\(final.errors)")
        // The demo drains within its shutdown deadline; on a slow machine (sanitizers) the operator's command
        // ships what is left, as after any run that ended before the spool was empty.
        let rest = try OTLPProcess.run(OTLPProcess.executable("otlp-dump"), ["send", "--spool", spool, "--endpoint", collector.endpoint])
        #expect(rest.status == 0, "\(rest.errors)")
        collector.stop()
        #expect(kills == 20)
        let expectedSet = Set(expected)
        let arrived = collector.items.filter { expectedSet.contains($0) }
        #expect(Set(arrived) == expectedSet, "every backlog item arrived")
        let extra = arrived.count - expected.count
        #expect(extra <= kills * perRecord, "at most one record again per kill: \(extra) extra items")
        let left = try FileManager.default.subpathsOfDirectory(atPath: spool).filter { $0.hasSuffix(".u32be.bin") }
        #expect(left.isEmpty, "\(left)")
    }

    /// Whether this process (and so the demo built with it) runs under ThreadSanitizer, whose runtime dies
    /// under a file size limit (`ThreadSanitizer:DEADLYSIGNAL`).
    static let isThreadSanitized = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil

    @Test(
        "a spool write that fails (a file size limit, as a full disk would): dropped and counted write_failed, no torn record; the next run spools and delivers",
        .disabled(if: isThreadSanitized, "ThreadSanitizer's runtime cannot run under a file size limit"))
    func writeFailure() throws {
        let directory = try OTLPTemporaryDirectory.make("demo-spool-full")
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("config.json")
        let spool = directory.appendingPathComponent("spool").path
        try Self.configuration(endpoint: "http://127.0.0.1:\(try OTLPFreePort.unused())", spool: spool).write(to: config)
        // 8 KiB per file (SIGXFSZ ignored, so writes past it fail with EFBIG): smaller than the demo's span batch.
        let demo = OTLPProcess.executable("otlpwire-demo").path
        let limited = try OTLPProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "trap '' XFSZ; ulimit -f 16; exec \"$0\" --config \"$1\" out1", demo, config.path],
            in: directory)
        #expect(limited.status != 0)
        #expect(limited.errors.contains("OTLPWire spool: 146 spans dropped (write_failed)"), "\(limited.errors)")
        // What is in the spool is whole records only.
        for file in try FileManager.default.subpathsOfDirectory(atPath: spool) where file.hasSuffix(".u32be.bin") {
            let validate = try OTLPProcess.run(OTLPProcess.executable("otlp-dump"), ["validate", "\(spool)/\(file)"])
            #expect(validate.status == 0, "\(file): \(validate.errors)")
        }

        let collector = try OTLPTestCollector()
        defer { collector.removeRecords() }
        try Self.configuration(endpoint: collector.endpoint, spool: spool).write(to: config)
        let next = try OTLPProcess.run(OTLPProcess.executable("otlpwire-demo"), ["--config", config.path, "out2"], in: directory)
        collector.stop()
        #expect(next.status == 0, "\(next.errors)")
        #expect(!next.errors.contains("torn"), "\(next.errors)")
        let written = try OTLPTestCollector.canonicalItems(
            ofFile: directory.appendingPathComponent("out2/traces.u32be.bin").path, signal: "traces")
        #expect(Set(written).isSubset(of: Set(collector.items)))
        let left = try FileManager.default.subpathsOfDirectory(atPath: spool).filter { $0.hasSuffix(".u32be.bin") }
        #expect(left.isEmpty, "\(left)")
    }
}
