import OTLPWire

/// What a journal file says, read record by record: the spans held at its end (started or ended, not
/// exported), the heartbeat, and what could not be used. Reading never traps: a damaged record (its checksum
/// wrong, not an OTLP request, or not a journal's) is skipped and counted, and reading goes on with the next
/// one; a length prefix past the end of the file or past the record bound ends the reading (the rest is counted
/// as one skipped record, and its bytes as skipped bytes); a record of a newer format version ends it too
/// (nothing of that file is used). A zero length prefix ends the records (a version 2 file is preallocated:
/// zeros follow its last record); bytes after it that are not zero are counted as skipped.
///
/// Version 2 records end in their CRC-32 (``OTLPSpanJournal/sealed(_:)``); a file is read as version 2 when its
/// first record ends in its right checksum, else as version 1 (no checksums).
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
    /// The bytes of the records that could not be used, and of what was not read after a fault.
    var skippedBytes = 0
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
        func skip(_ problem: String, bytes skipped: Int) {
            skippedRecords += 1
            skippedBytes += skipped
            if problems.count < 5 { problems.append("record \(index) at byte \(offset): \(problem)") }
        }
        /// Whether the records end in their checksum: decided by the first record.
        var isChecksummed: Bool?
        let trailer = OTLPSpanJournal.checksumTrailerBytes
        reading: while offset < bytes.count {
            defer { index += 1 }
            switch OTLPLengthPrefix.decode(bytes[offset...], framing: .u32be) {
            case .incomplete, .invalid:
                let rest = bytes.count - offset
                if bytes[offset...].allSatisfy({ $0 == 0 }) { break reading }  // the preallocated zeros
                skip("the file ends inside a length prefix (\(rest) bytes)", bytes: rest)
                break reading
            case .length(0, let prefixBytes):
                // The end of the records: zeros follow (the file is preallocated).
                guard let nonZero = bytes[offset...].firstIndex(where: { $0 != 0 }), let last = bytes.lastIndex(where: { $0 != 0 }) else {
                    break reading
                }
                // A record is written in place with its length prefix last: a kill inside the write leaves its
                // body behind a zero prefix. That is the end of an ordinary killed run, not damage.
                if last < offset + prefixBytes + maxRecordBytes + trailer { break reading }
                skip(
                    "\(last - nonZero + 1) bytes from byte \(nonZero) to byte \(last), after the end of the records, are not all zero (not read)",
                    bytes: last - nonZero + 1)
                break reading
            case .length(let length, let prefixBytes):
                let rest = bytes.count - offset
                guard length <= UInt64(maxRecordBytes + trailer) else {
                    skip(
                        "declares \(length) bytes, more than a journal record may hold (\(maxRecordBytes)); the \(rest) bytes from here on are not read",
                        bytes: rest)
                    break reading
                }
                let start = offset + prefixBytes
                guard start + Int(length) <= bytes.count else {
                    skip(
                        "declares \(length) bytes, but the file ends \(bytes.count - start) bytes later; the \(rest) bytes from here on are not read",
                        bytes: rest)
                    break reading
                }
                defer { offset = start + Int(length) }
                var end = start + Int(length)
                let sealed = Self.hasChecksum(bytes, start: start, end: end)
                if isChecksummed == nil { isChecksummed = sealed }
                if isChecksummed == true {
                    guard sealed else {
                        skip("its checksum does not match its bytes (damaged)", bytes: prefixBytes + Int(length))
                        continue
                    }
                    end -= trailer
                }
                let data: OTLPTracesData
                do {
                    data = try bytes[start..<end].withUnsafeBytes { try decoder.decodeTraces($0) }
                } catch {
                    skip("not an OTLP traces request: \(error)", bytes: prefixBytes + Int(length))
                    continue
                }
                switch OTLPSpanJournalRecord.decode(data) {
                case .foreign(let why):
                    skip("not a journal record: \(why)", bytes: prefixBytes + Int(length))
                case .newerVersion(let version):
                    skip(
                        "written by journal format version \(version) (this library reads \(OTLPSpanJournalRecord.currentVersion))",
                        bytes: bytes.count - offset)
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

    /// Whether the record in `bytes[start..<end]` ends in the checksum field holding the CRC-32 of the bytes
    /// before it.
    static func hasChecksum(_ bytes: [UInt8], start: Int, end: Int) -> Bool {
        let trailer = OTLPSpanJournal.checksumTrailerBytes
        guard end - start > trailer, bytes[end - trailer] == OTLPSpanJournal.checksumTag[0],
            bytes[end - trailer + 1] == OTLPSpanJournal.checksumTag[1]
        else { return false }
        let stored = UInt32(bytes[end - 4]) | UInt32(bytes[end - 3]) << 8 | UInt32(bytes[end - 2]) << 16 | UInt32(bytes[end - 1]) << 24
        return bytes.withUnsafeBytes { OTLPCRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[start..<end - trailer])) } == stored
    }
}
