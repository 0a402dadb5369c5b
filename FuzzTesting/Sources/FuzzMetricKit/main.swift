import OTLPMetricKit

/// libFuzzer entry: the input converted as a MetricKit metric payload, as a diagnostic payload, and as
/// whatever its structure says it is (`convertPayload`, which classifies and converts in one parse).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMetricKit(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    let converter = MetricKitConverter(options: .init(maxStacktraceJSONBytes: 4096))
    _ = try? converter.convertMetricPayload(json: bytes)
    _ = try? converter.convertDiagnosticPayload(json: bytes)
    _ = try? converter.convertPayload(json: bytes)
    return 0
}
