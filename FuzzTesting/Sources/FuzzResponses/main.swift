import OTLPWire

/// libFuzzer entry: one body decoded as each collector answer (the export response of either signal and a
/// `google.rpc.Status`, protobuf and JSON); whatever decodes must encode to a body that decodes to it again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponses(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    for signal in OTLPSignal.allCases {
        if let response = try? OTLPExportResponse(protobuf: bytes, for: signal) {
            guard (try? OTLPExportResponse(protobuf: response.encoded(for: signal), for: signal)) == response else {
                fatalError("protobuf round trip changed \(response)")
            }
        }
        if let response = try? OTLPExportResponse(json: bytes, for: signal) {
            guard (try? OTLPExportResponse(json: response.jsonEncoded(for: signal), for: signal)) == response else {
                fatalError("JSON round trip changed \(response)")
            }
        }
    }
    if let status = try? OTLPRPCStatus(protobuf: bytes) {
        guard (try? OTLPRPCStatus(protobuf: status.encoded())) == status else { fatalError("protobuf round trip changed \(status)") }
    }
    if let status = try? OTLPRPCStatus(json: bytes) {
        guard (try? OTLPRPCStatus(json: status.jsonEncoded())) == status else { fatalError("JSON round trip changed \(status)") }
    }
    return 0
}
