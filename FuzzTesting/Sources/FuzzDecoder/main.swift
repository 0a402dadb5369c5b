import OTLPWire

/// libFuzzer entry: one bare message decoded as an ExportTraceServiceRequest and as an
/// ExportLogsServiceRequest (the scan, then protobuf-c's unpack, then the model), and re-encoded.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecoder(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let decoder = OTLPDecoder(options: OTLPDecodingOptions(maxRecordBytes: 1 << 20, maxAttributesPerItem: 64))
    if let traces = try? decoder.decodeTraces(bytes) { _ = OTLPEncoder().encode(traces) }
    if let logs = try? decoder.decodeLogs(bytes) { _ = OTLPEncoder().encode(logs) }
    _ = decoder.detectSignal(bytes)
    return 0
}
