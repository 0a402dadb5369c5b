import OTLPWire

/// What a journal file says, read record by record: the spans held at its end (started or ended, not
/// exported), the heartbeat, and what could not be used. Reading never traps: a damaged record (not an OTLP
/// request, or not a journal's) is skipped and counted, and reading goes on with the next one; a length
/// prefix past the end of the file or past the record bound ends the reading (the rest is counted as one
/// skipped record); a record of a newer format version ends it too (nothing of that file is used).
struct OTLPSpanJournalContent {
    /// A span held: its latest record.
    struct Held {
        var record: OTLPSpanJournalRecord
        var scope: OTLPInstrumentationScope
        var span: OTLPSpan
        /// Where the span was handed to an exporter, with no acknowledgement after it: the writing process may
        /// have been killed after the exporter wrote it and before the journal said so. `nil` for an `exporting`
        /// record that does not say where (written by an older version).
        var destinations: [OTLPExportDestination?] = []
        /// Handed to an exporter, and no acknowledgement followed.
        var inDoubt: Bool { !destinations.isEmpty }
    }

    /// The spans held, in the order they were first journaled.
    var held: [Held] = []
    /// The last moment the writing process was known alive: the latest time any record holds (written, or a
    /// span's start or end).
    var heartbeatUnixNano: UInt64 = 0
    /// Records that could not be used.
    var skippedRecords = 0
    /// The first problems, each with the record's index and byte offset.
    var problems: [String] = []
    /// The version of a record written by a newer format version, if one was met.
    var newerVersion: Int64?

    init(bytes: [UInt8], maxRecordBytes: Int) {
        var order: [OTLPSpanJournal.Key] = []
        var resource = OTLPResource()
        var latest: [OTLPSpanJournal.Key: Held] = [:]
        var offset = 0
        var index = 0
        let decoder = OTLPDecoder()
        func skip(_ problem: String) {
            skippedRecords += 1
            if problems.count < 5 { problems.append("record \(index) at byte \(offset): \(problem)") }
        }
        reading: while offset < bytes.count {
            defer { index += 1 }
            switch OTLPLengthPrefix.decode(bytes[offset...], framing: .u32be) {
            case .incomplete, .invalid:
                skip("the file ends inside a length prefix (\(bytes.count - offset) bytes)")
                break reading
            case .length(let length, let prefixBytes):
                guard length <= UInt64(maxRecordBytes) else {
                    skip("declares \(length) bytes, more than a journal record may hold (\(maxRecordBytes))")
                    break reading
                }
                let start = offset + prefixBytes
                guard start + Int(length) <= bytes.count else {
                    skip("declares \(length) bytes, but the file ends \(bytes.count - start) bytes later")
                    break reading
                }
                defer { offset = start + Int(length) }
                let data: OTLPTracesData
                do {
                    data = try bytes[start..<start + Int(length)].withUnsafeBytes { try decoder.decodeTraces($0) }
                } catch {
                    skip("not an OTLP traces request: \(error)")
                    continue
                }
                switch OTLPSpanJournalRecord.decode(data) {
                case .foreign(let why):
                    skip("not a journal record: \(why)")
                case .newerVersion(let version):
                    skip("written by journal format version \(version) (this library reads \(OTLPSpanJournalRecord.currentVersion))")
                    newerVersion = version
                    break reading
                case .record(var record):
                    heartbeatUnixNano = max(heartbeatUnixNano, record.writtenUnixNano)
                    // The resource of the writing process is in the `alive` record that opens its file; records
                    // of its spans leave it out (a recovered span's record carries its own).
                    if record.kind == .alive, !record.resource.attributes.isEmpty { resource = record.resource }
                    if record.scopedSpan != nil, record.resource.attributes.isEmpty { record.resource = resource }
                    for span in record.exportedSpans {
                        let key = OTLPSpanJournal.Key(traceID: span.traceID!, spanID: span.spanID!)
                        if record.kind == .exported { latest[key] = nil } else { latest[key]?.destinations.append(record.destination) }
                    }
                    guard let (scope, span) = record.scopedSpan, let traceID = span.traceID, let spanID = span.spanID else { continue }
                    heartbeatUnixNano = max(heartbeatUnixNano, span.startTimeUnixNano, span.endTimeUnixNano)
                    let key = OTLPSpanJournal.Key(traceID: traceID, spanID: spanID)
                    if latest[key] == nil { order.append(key) }
                    latest[key] = Held(record: record, scope: scope, span: span)
                }
            }
        }
        if newerVersion != nil { return }
        var seen = Set<OTLPSpanJournal.Key>()
        held = order.compactMap { key in seen.insert(key).inserted ? latest[key] : nil }
    }
}
