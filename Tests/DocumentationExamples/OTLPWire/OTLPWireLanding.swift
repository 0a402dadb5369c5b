// OTLPWire.docc/OTLPWire.md (the landing page).
import OTLPWire

func writeAndReadRecords(resource: OTLPResource, scope: OTLPInstrumentationScope, span: OTLPSpan) throws {
    let writer = OTLPRecordWriter(sink: try OTLPFileSink(path: "traces.u32be.bin"))
    try writer.write(OTLPTracesData(resource: resource, scope: scope, items: [span]))
    try writer.close()

    let reader = try OTLPRecordReader(path: "traces.u32be.bin")
    while let record = try reader.next() { print(record.payload.itemCount) }
}
