import OTLPWire

/// libFuzzer entry: the input read as a file of any framing, gzip, zstd (a stream or records) or neither, traces
/// or logs (detection on),
/// every record decoded. Must never crash, hang or grow without bound; errors are fine.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrameReader(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    var options = OTLPReaderOptions(
        decoding: OTLPDecodingOptions(maxRecordBytes: 1 << 20, maxAttributesPerItem: 64), maxLineBytes: 1 << 20,
        maxDecompressedBytes: 16 << 20)
    options.chunkSize = 4096
    guard let reader = try? OTLPRecordReader(source: OTLPMemorySource(bytes), options: options) else { return 0 }
    while let record = try? reader.next() { _ = record.payload.itemCount }
    return 0
}
