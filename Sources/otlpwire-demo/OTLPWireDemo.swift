import OTLPWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a small, realistic batch of telemetry with the library: an app launch, a screen load with
/// network calls (one failing), and the log records they produce, one signal per file.
///
/// usage: otlpwire-demo [OUTPUT_DIRECTORY]   (default demo-output)
@main
struct OTLPWireDemo {
    static func main() throws {
        let directory = CommandLine.arguments.dropFirst().first ?? "demo-output"
        mkdir(directory, 0o755)
        var generator = SystemRandomNumberGenerator()
        var clock = now()
        func advance(_ nanos: UInt64) -> UInt64 { clock += nanos; return clock }

        let resource = OTLPResource(attributes: [
            OTLPAttribute("service.name", "otlpwire-demo"),
            OTLPAttribute("service.version", "0.1.0"),
            OTLPAttribute("os.type", "linux"),
            OTLPAttribute("process.pid", .int(Int64(getpid()))),
            OTLPAttribute("telemetry.sdk.name", "otlpwire"),
            OTLPAttribute("telemetry.sdk.language", "swift"),
        ])
        let scope = OTLPInstrumentationScope(name: "otlpwire.demo", version: "0.1.0")
        let traceID = OTLPTraceID(high: generator.next(), low: generator.next())
        func spanID() -> OTLPSpanID { OTLPSpanID(generator.next() | 1) }

        var spans: [OTLPSpan] = []
        var logs: [OTLPLogRecord] = []
        let launchStart = advance(0)
        let launchID = spanID()
        let screenID = spanID()
        let screenStart = advance(180_000_000)
        for (index, path) in ["/v1/feed", "/v1/profile", "/v1/recommendations"].enumerated() {
            let id = spanID()
            let start = advance(5_000_000)
            let end = advance(UInt64(40_000_000 + index * 25_000_000))
            let failed = index == 2
            spans.append(OTLPSpan(
                traceID: traceID, spanID: id, parentSpanID: screenID, name: "GET \(path)", kind: .client,
                startTimeUnixNano: start, endTimeUnixNano: end,
                attributes: [
                    OTLPAttribute("http.request.method", "GET"), OTLPAttribute("url.path", .string(path)),
                    OTLPAttribute("http.response.status_code", .int(failed ? 503 : 200)),
                ],
                events: [OTLPSpanEvent(name: "response.headers", timeUnixNano: end - 2_000_000)],
                status: failed ? OTLPSpanStatus(code: .error, message: "service unavailable") : nil))
            logs.append(OTLPLogRecord(
                timeUnixNano: end, observedTimeUnixNano: end, severity: failed ? .error : .info,
                severityText: failed ? "ERROR" : "INFO", body: .string("GET \(path) -> \(failed ? 503 : 200)"),
                attributes: [OTLPAttribute("url.path", .string(path))], traceID: traceID, spanID: id, flags: 1))
        }
        let screenEnd = advance(30_000_000)
        spans.append(OTLPSpan(
            traceID: traceID, spanID: screenID, parentSpanID: launchID, name: "HomeScreen", kind: .internal,
            startTimeUnixNano: screenStart, endTimeUnixNano: screenEnd,
            attributes: [OTLPAttribute("view.name", "HomeScreen"), OTLPAttribute("view.type", "swiftui")],
            status: OTLPSpanStatus(code: .ok)))
        spans.append(OTLPSpan(
            traceID: traceID, spanID: launchID, name: "AppStart", kind: .internal,
            startTimeUnixNano: launchStart, endTimeUnixNano: screenEnd + 1_000_000,
            attributes: [OTLPAttribute("launch.type", "COLD"), OTLPAttribute("active_prewarm", false)]))
        logs.insert(OTLPLogRecord(
            timeUnixNano: launchStart, observedTimeUnixNano: launchStart, severity: .info, severityText: "INFO",
            body: .keyValueList([OTLPAttribute("session.id", .string(OTLPTraceID(high: generator.next(), low: generator.next()).hex))]),
            eventName: "session.start"), at: 0)

        let tracesPath = "\(directory)/traces.u32be.bin"
        let logsPath = "\(directory)/logs.u32be.bin.gz"
        let jsonPath = "\(directory)/traces.jsonl"
        let traceWriter = OTLPFrameWriter(sink: try OTLPFileSink(path: tracesPath))
        try traceWriter.write(OTLPTracesData(resource: resource, scope: scope, spans: spans))
        try traceWriter.flush(durable: true)
        let logWriter = OTLPFrameWriter(sink: try OTLPFileSink(path: logsPath), gzip: true)
        try logWriter.write(OTLPLogsData(resource: resource, scope: scope, logRecords: logs))
        try logWriter.flush(durable: true)
        let jsonWriter = OTLPFrameWriter(sink: try OTLPFileSink(path: jsonPath), framing: .jsonl)
        try jsonWriter.write(OTLPTracesData(resource: resource, scope: scope, spans: spans))
        try jsonWriter.close()
        print("wrote \(spans.count) spans to \(tracesPath) and \(jsonPath), \(logs.count) log records to \(logsPath)")
    }

    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
