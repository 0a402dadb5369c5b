import OTLPMetricKit
import OTLPWire

extension OTLPMetricKitCommand {
    /// Largest record written, in bytes: a quarter of the smaller of what readers accept by default (the
    /// protobuf message limit, `OTLPDecodingOptions.default.maxRecordBytes`, and the JSON line limit), so
    /// that the memory a reader needs to unpack it also stays within its default limit. 2 MiB today.
    static var maxRecordBytes: Int { min(OTLPDecodingOptions.default.maxRecordBytes, OTLPReaderOptions.default.maxLineBytes - 1) / 4 }

    /// The records for `items` in the output's framing: one, or several (each at most ``maxRecordBytes``,
    /// the items in order) when one would be larger: a payload of a million signposts still gives files
    /// readers accept. A single item larger than that is a payload error. No items give no record.
    static func records<Item>(
        _ items: [Item], framing: OTLPFraming, what: String, encode: ([Item], OTLPFraming) -> [UInt8]
    ) throws(MetricKitConversionError) -> [[UInt8]] {
        // No items, no record: a request holding only a resource names no signal, and readers would have to
        // ask which signal the file is.
        guard !items.isEmpty else { return [] }
        var records: [[UInt8]] = []
        var pending: [ArraySlice<Item>] = [items[...]]  // a stack: the first slice on top
        while let slice = pending.popLast() {
            let bytes = encode(Array(slice), framing)
            if bytes.count <= maxRecordBytes {
                records.append(bytes)
            } else if slice.count > 1 {
                let middle = slice.startIndex + slice.count / 2
                pending.append(slice[middle...])
                pending.append(slice[..<middle])
            } else {
                throw MetricKitConversionError(
                    path: "$", message: "one \(what) encodes to \(bytes.count) bytes, more than the \(maxRecordBytes) a record may have")
            }
        }
        return records
    }

    /// Spans as records of one traces request each.
    static func traceRecords(
        _ spans: [OTLPSpan], resource: OTLPResource, scope: OTLPInstrumentationScope, framing: OTLPFraming
    )
        throws(MetricKitConversionError) -> [[UInt8]]
    {
        try records(spans, framing: framing, what: "span") { spans, framing in
            let data = OTLPTracesData(resource: resource, scope: scope, items: spans)
            return framing == .jsonl ? OTLPJSONEncoder().encode(data) : OTLPEncoder().encode(data)
        }
    }

    /// Log records as records of one logs request each.
    static func logRecords(
        _ logRecords: [OTLPLogRecord], resource: OTLPResource, scope: OTLPInstrumentationScope, framing: OTLPFraming
    )
        throws(MetricKitConversionError) -> [[UInt8]]
    {
        try records(logRecords, framing: framing, what: "log record") { logRecords, framing in
            let data = OTLPLogsData(resource: resource, scope: scope, items: logRecords)
            return framing == .jsonl ? OTLPJSONEncoder().encode(data) : OTLPEncoder().encode(data)
        }
    }

    /// Writes encoded records.
    static func write(_ records: [[UInt8]], to writer: OTLPRecordWriter?) throws(OTLPWriteError) {
        guard let writer else { return }
        for record in records {
            try record.withUnsafeBytes { bytes in Result { () throws(OTLPWriteError) in try writer.writeEncoded(bytes) } }.get()
        }
    }
}
