import OTLPWire

/// libFuzzer entry: one message decoded as an ExportMetricsServiceRequest, from protobuf (the scan, the merge,
/// protobuf-c's unpack, the model) and from OTLP JSON. Whatever decodes is encoded again, and that encoding
/// must decode and encode to the same bytes (the codecs agree with each other on every accepted input).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMetricsDecoder(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let options = OTLPDecodingOptions(maxRecordBytes: 1 << 20, maxAttributesPerItem: 64)
    let decoder = OTLPDecoder(options: options)
    if let metrics = try? decoder.decodeMetrics(bytes) {
        let encoded = OTLPEncoder().encode(metrics)
        guard let again = try? decoder.decodeMetrics(encoded) else { fatalError("our own metrics encoding does not decode") }
        precondition(OTLPEncoder().encode(again) == encoded, "protobuf metrics encoding is not stable")
    }
    let jsonDecoder = OTLPJSONDecoder(options: options)
    if let metrics = try? jsonDecoder.decodeMetrics(bytes) {
        let encoded = OTLPJSONEncoder().encode(metrics)
        guard let again = try? encoded.withUnsafeBytes({ try jsonDecoder.decodeMetrics($0) }) else {
            fatalError("our own metrics JSON does not decode")
        }
        precondition(OTLPJSONEncoder().encode(again) == encoded, "JSON metrics encoding is not stable")
    }
    _ = decoder.detectSignal(bytes)
    return 0
}
