import Foundation
import OTLPInstrumentation
import OTLPTelemetry

/// libFuzzer entry: the input read as a pipeline configuration and as an app configuration.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    _ = try? OTLPTelemetryConfiguration.load(json: data)
    _ = try? OTLPAppConfiguration.load(json: data)
    return 0
}
