import OTLPWire

/// libFuzzer entry: the input read as OTLP JSON lines (and as one JSON document), every record decoded.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONLines(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    for signal in [OTLPSignal.traces, .logs] {
        var options = OTLPReaderOptions(
            framing: .jsonl, signal: signal, decoding: OTLPDecodingOptions(maxAttributesPerItem: 64), maxLineBytes: 1 << 20)
        options.chunkSize = 4096
        guard let reader = try? OTLPRecordReader(source: OTLPMemorySource(bytes), options: options) else { continue }
        while let record = try? reader.next() { _ = record.payload.itemCount }
    }
    let json = OTLPJSONDecoder()
    bytes.withUnsafeBytes { buffer in
        _ = try? json.decodeTraces(buffer)
        _ = try? json.decodeLogs(buffer)
    }
    return 0
}
