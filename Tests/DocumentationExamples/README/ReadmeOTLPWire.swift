// README.md, "OTLPWire": the example as the README shows it (Tests/DocumentationExamplesTests checks that the text
// matches), run by the tests in a temporary directory.
import OTLPWire

func writeAndReadTraces() throws -> Int {
    let resource = OTLPResource(attributes: [OTLPAttribute("service.name", "checkout")])
    let scope = OTLPInstrumentationScope(name: "com.example.checkout", version: "1.0.0")
    let span = OTLPSpan(
        traceID: OTLPTraceID(hex: "5b8efff798038103d269b633813fc60c"), spanID: OTLPSpanID(hex: "eee19b7ec3c1b174"),
        name: "GET /cart", kind: .server,
        startTimeUnixNano: 1_700_000_000_000_000_000, endTimeUnixNano: 1_700_000_000_250_000_000,
        attributes: [OTLPAttribute("http.response.status_code", 200)], status: OTLPSpanStatus(code: .ok))

    // u32be length prefixes by default (also .varint, .jsonl); gzip: true writes one gzip member per flush.
    let writer = OTLPRecordWriter(sink: try OTLPFileSink(path: "traces.u32be.bin"))
    try writer.write(OTLPTracesData(resource: resource, scope: scope, items: [span]))
    try writer.flush(durable: true)  // durable: fsync

    // Any OTLP file reads back: framing, gzip and signal are detected.
    let reader = try OTLPRecordReader(path: "traces.u32be.bin")
    var spans = 0
    while let record = try reader.next() {
        if record.payload.signal == .traces { spans += record.payload.itemCount }
    }
    return spans
}
