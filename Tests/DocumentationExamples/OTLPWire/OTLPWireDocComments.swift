// The examples in the doc comments of OTLPWire's types (Sources/OTLPWire).
import Foundation
import OTLPWire

func describeRefusal(body: [UInt8]) throws -> String {
    let status = try OTLPRPCStatus(protobuf: body)
    return "rejected with status \(status.code): \(status.message)"
}

func describePartialSuccess(body: [UInt8]) throws -> String? {
    let response = try OTLPExportResponse(protobuf: body, for: .traces)
    if response.rejectedItems > 0 { return "\(response.rejectedItems) spans rejected: \(response.errorMessage)" }
    return nil
}

func writeSpansToAFile(_ spans: [OTLPSpan], resource: OTLPResource, scope: OTLPInstrumentationScope) throws {
    let writer = OTLPRecordWriter(sink: try OTLPFileSink(path: "traces.u32be.bin"))
    try writer.write(OTLPTracesData(resource: resource, scope: scope, items: spans))
    try writer.close()
}

func countSpansInAFile(at path: String) throws -> Int {
    let reader = try OTLPRecordReader(path: path)  // "traces.u32be.bin.gz": framing and compression detected
    var spans = 0
    while let record = try reader.next() { spans += record.payload.itemCount }
    return spans
}

func isOverALimit(_ error: OTLPReadError) -> Bool {
    error.code == .recordTooLarge || error.code == .nestingTooDeep || error.code == .tooManyAttributes
}

func readerClosedThePipe(_ error: OTLPWriteError) -> Bool {
    error.code == .system && error.errno == EPIPE  // a write to a pipe whose reader has gone
}

func encodeSpans(_ spans: [OTLPSpan], resource: OTLPResource, scope: OTLPInstrumentationScope) -> [UInt8] {
    let encoder = OTLPEncoder()  // one per thread: it reuses its memory from request to request
    return encoder.encode(OTLPTracesData(resource: resource, scope: scope, items: spans))
}
