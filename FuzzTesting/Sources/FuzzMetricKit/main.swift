import OTLPMetricKit

/// libFuzzer entry: the input converted as whatever its structure says it is (`convertPayload`, the
/// converter's one entry point, which classifies and converts in one parse).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMetricKit(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    let converter = MetricKitConverter(options: .init(maxStacktraceJSONBytes: 4096))
    _ = try? converter.convertPayload(json: bytes)
    return 0
}
