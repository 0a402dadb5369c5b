import OTLPWire

/// libFuzzer entry: spans whose span and parent IDs come from a pool of eight, so parent chains, cycles,
/// spans that are their own parent, duplicate IDs and absent parents are all frequent, read back through
/// the record reader and rendered by otlp-dump's tree printer (its source files, linked into this target).
/// The printer must show every span exactly once, whatever the links, and must never recurse per span.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTreePrinter(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = UnsafeBufferPointer(start: start, count: count)
    let traceID = OTLPTraceID(high: 1, low: 2)
    var spans: [OTLPSpan] = []
    var position = 0
    // Two bytes a span: its ID and its parent (0 = a root), each from the pool; times from the position.
    while position + 1 < input.count, spans.count < 4096 {
        let id = input[position] % 9
        let parent = input[position + 1] % 9
        spans.append(
            OTLPSpan(
                traceID: input[position] & 0x80 == 0 ? traceID : nil, spanID: id == 0 ? nil : OTLPSpanID(UInt64(id)),
                parentSpanID: parent == 0 ? nil : OTLPSpanID(UInt64(parent)), name: "⟨\(spans.count)⟩",
                startTimeUnixNano: UInt64(position), endTimeUnixNano: UInt64(input[position + 1]) << 20))
        position += 2
    }
    let data = OTLPTracesData(resource: OTLPResource(), scope: OTLPInstrumentationScope(name: "fuzz"), items: spans)
    let bytes = OTLPEncoder().encode(data)
    let options = OTLPReaderOptions(framing: .unframed, signal: .traces)
    guard let reader = try? OTLPRecordReader(source: OTLPMemorySource(bytes), options: options),
        let record = try? reader.next()
    else { fatalError("encoded spans do not read back") }
    for showDetails in [false, true] {
        var renderer = TreeRenderer(color: showDetails, showDetails: showDetails)
        let text = renderer.render(record.payload, file: "fuzz", record: record)
        var seen = [Int](repeating: 0, count: spans.count)
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "⟨") {
            rest = rest[rest.index(after: open)...]
            guard let close = rest.firstIndex(of: "⟩"), let index = Int(rest[..<close]), index < spans.count else { continue }
            seen[index] += 1
            rest = rest[rest.index(after: close)...]
        }
        if let missing = seen.firstIndex(where: { $0 != 1 }) {
            fatalError("span ⟨\(missing)⟩ appears \(seen[missing]) times in the tree of \(spans.count) spans")
        }
    }
    return 0
}
