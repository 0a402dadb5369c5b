// OTLPWire.docc/GettingStarted.md.
import OTLPWire

func writeTracesAndLogs() throws {
    let resource = OTLPResource(attributes: [OTLPAttribute("service.name", "checkout"), OTLPAttribute("service.version", "1.4.0")])
    let scope = OTLPInstrumentationScope(name: "com.example.checkout")
    let ids = OTLPRandomIDGenerator()
    let traceID = ids.newTraceID()
    let start = OTLPSystemClock().nowUnixNano()
    let span = OTLPSpan(
        traceID: traceID, spanID: ids.newSpanID(), name: "charge card", kind: .client,
        startTimeUnixNano: start, endTimeUnixNano: start + 42_000_000,
        attributes: [OTLPAttribute("payment.amount", 12.5), OTLPAttribute("payment.retried", false)],
        events: [OTLPSpanEvent(name: "card accepted", timeUnixNano: start + 40_000_000)])
    let record = OTLPLogRecord(
        timeUnixNano: start + 41_000_000, severity: .info, severityText: "INFO", body: "payment accepted",
        attributes: [OTLPAttribute("payment.id", "p-1234")], traceID: traceID, spanID: span.spanID)

    let traces = OTLPRecordWriter(sink: try OTLPFileSink(path: "traces.u32be.bin"))
    try traces.write(OTLPTracesData(resource: resource, scope: scope, items: [span]))
    try traces.close()

    // JSON lines, gzip-compressed: what the Collector's otlpjsonfile receiver reads.
    let logs = OTLPRecordWriter(sink: try OTLPFileSink(path: "logs.jsonl.gz"), framing: .jsonl, gzip: true)
    try logs.write(OTLPLogsData(resource: resource, scope: scope, items: [record]))
    try logs.close()
}

func describeFile(at path: String) -> [String] {
    var lines: [String] = []
    do throws(OTLPReadError) {
        let reader = try OTLPRecordReader(path: path)
        while let record = try reader.next() {
            let payload = record.payload
            lines.append("record \(record.index): \(payload.signal), \(payload.itemCount) items, \(record.byteCount) bytes")
        }
    } catch {
        // Every record before the fault was delivered above; the error says where and why.
        lines.append("\(path): \(error)")  // record 3, byte offset 4386: truncated_record: …
        if error.code == .truncatedRecord { lines.append("cut short: is it still being written?") }
    }
    return lines
}
