// OTLPWire.docc/FileFormats.md.
import OTLPWire

func encodeAndDecodeOneRequest(_ traces: OTLPTracesData) throws -> Bool {
    let protobuf: [UInt8] = OTLPEncoder().encode(traces)  // an ExportTraceServiceRequest, no framing
    let fromProtobuf = try OTLPDecoder().decodeTraces(protobuf)

    let json: [UInt8] = OTLPJSONEncoder().encode(traces)  // one OTLP JSON object
    let fromJSON = try json.withUnsafeBytes { bytes in try OTLPJSONDecoder().decodeTraces(bytes) }
    return fromProtobuf == traces && fromJSON == traces
}

func writeAndReadVarintLogs(_ logs: OTLPLogsData) throws -> Int {
    let writer = OTLPRecordWriter(sink: try OTLPFileSink(path: "app.log.bin"), framing: .varint)
    try writer.write(logs)
    try writer.close()

    // Neither the name nor a lone record may decide: say what the file holds.
    let reader = try OTLPRecordReader(path: "app.log.bin", options: OTLPReaderOptions(framing: .varint, signal: .logs))
    var records = 0
    while let record = try reader.next() { records += record.payload.itemCount }
    return records
}
