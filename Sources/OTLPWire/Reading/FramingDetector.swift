/// Guesses the framing of a stream from its first bytes (up to 1 MiB).
///
/// Each binary framing reads the sample record by record (prefixes decoded by ``OTLPLengthPrefix``); a record
/// fits when it is a valid request of any signal. A framing is chosen, in this order, when:
/// 1. `u32be` reads the whole sample, or every record up to one running past a sample that continues;
/// 2. `u32be` reads at least one non-empty record and then meets the end of the input inside a prefix or a
///    record (a cut-off file: the reader reports the truncation rather than another framing calling the rest
///    valid; a u32be stream of small records also reads as varint, each prefix `00 00 00 n` as three empty
///    records and a one-byte prefix);
/// 3. `varint` does the same with at least one non-empty record (or reads the whole input cleanly);
/// 4. the whole (ended) sample is one bare request (with items, or without unknown fields);
/// 5. `u32be`, then `varint`, reads at least one non-empty record before damage (the reader reports the
///    damage after delivering them); then `u32be` when its first record, damaged, ends exactly with the input;
///    then `u32be`, then `varint`, is only cut short;
/// 6. otherwise one bare message when it starts like one (field 1, length-delimited), else `u32be`, so the
///    reader reports the fault in the likeliest terms.
struct FramingDetector {
    let decoder: OTLPDecoder
    let maxRecordBytes: Int

    /// How a framing reads a sample.
    struct Reading {
        enum Ending {
            /// Every byte of the sample was read as complete records.
            case clean
            /// A record runs past a sample that more input follows.
            case pastSample
            /// The input ends inside a prefix or a record.
            case truncated
            /// A prefix or record that no input can make valid (invalid prefix, over the limit, not a request).
            case damaged
        }

        var records = 0
        var nonEmptyRecords = 0
        var ending = Ending.clean
        /// Declared length of the record running past the sample (`.pastSample`).
        var runningLength: UInt64 = 0
        /// The damaged record was whole and ended exactly where the (ended) input does: its prefix declared
        /// the input's length, which is evidence for the framing even though the record is not a request.
        var damagedRecordEndsInput = false

        /// Strong evidence for the framing: non-empty records that end exactly with the input, or run on
        /// past the sample after at least one complete record.
        var endsCleanly: Bool {
            nonEmptyRecords > 0 && (ending == .clean || (ending == .pastSample && records > 0))
        }
    }

    func detect(_ sample: [UInt8], atEnd: Bool) -> OTLPFraming {
        guard let first = sample.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else { return .u32be }
        if first == UInt8(ascii: "{") {
            // JSON, unless a binary framing reads the whole sample cleanly: a varint record of 123 bytes starts
            // with `{`, and a bare request whose first envelope is 123 bytes with `0a 7b` (0x0A looks like a
            // blank line). JSON text never reads as consecutive valid requests.
            if read(sample, framing: .varint, atEnd: atEnd).endsCleanly { return .varint }
            if read(sample, framing: .u32be, atEnd: atEnd).endsCleanly { return .u32be }
            if atEnd, isBareRequest(sample[...]), sample[0] == 0x0A { return .unframed }
            return .jsonl  // see isJSONDocument
        }
        let u32 = read(sample, framing: .u32be, atEnd: atEnd)
        switch u32.ending {
        case .clean where u32.records > 0: return .u32be
        case .pastSample where u32.records > 0 || u32.runningLength > UInt64(sample.count / 2): return .u32be
        case .truncated where u32.nonEmptyRecords > 0: return .u32be
        default: break
        }
        let varint = read(sample, framing: .varint, atEnd: atEnd)
        switch varint.ending {
        case .clean where varint.nonEmptyRecords > 0: return .varint
        case .pastSample where varint.records > 0 || varint.runningLength > UInt64(sample.count / 2): return .varint
        case .truncated where varint.nonEmptyRecords > 0: return .varint
        default: break
        }
        if atEnd, isBareRequest(sample[...]) { return .unframed }
        if u32.nonEmptyRecords > 0 { return .u32be }
        if varint.nonEmptyRecords > 0 { return .varint }
        // One whole record, damaged: a varint reading of it that only runs out of input (its first bytes `00 00`
        // read as empty records) says less than a u32be prefix that declares exactly the input's length.
        if u32.damagedRecordEndsInput && u32.records == 0 { return .u32be }
        if u32.ending == .truncated { return .u32be }
        if varint.ending == .truncated { return .varint }
        return sample[0] == 0x0A ? .unframed : .u32be
    }

    /// `true` when a JSON sample is one multi-line document rather than JSON lines: its first line ends
    /// inside the sample and is not a complete JSON value. A first line longer than the sample is a JSON
    /// line (a pretty-printed document breaks its first line within a few bytes).
    func isJSONDocument(_ sample: [UInt8]) -> Bool {
        guard let start = sample.firstIndex(of: UInt8(ascii: "{")) else { return false }
        guard let end = sample[start...].firstIndex(of: 0x0A) else { return false }
        let firstLine = sample[start..<end]
        return firstLine.withUnsafeBufferPointer { (try? JSONParser.parse($0, maxDepth: 1024)) == nil }
    }

    /// Reads `sample` as records of `framing` (`u32be` or `varint`).
    func read(_ sample: [UInt8], framing: OTLPFraming, atEnd: Bool) -> Reading {
        var reading = Reading()
        var position = 0
        while position < sample.count {
            switch OTLPLengthPrefix.decode(sample[position...], framing: framing) {
            case .incomplete:
                reading.ending = atEnd ? .truncated : .pastSample
                return reading
            case .invalid:
                reading.ending = .damaged
                return reading
            case .length(let declared, let prefixBytes):
                guard declared <= UInt64(clamping: maxRecordBytes) else {
                    reading.ending = .damaged
                    return reading
                }
                let available = sample.count - position - prefixBytes
                guard declared <= UInt64(available) else {
                    reading.ending = atEnd ? .truncated : .pastSample
                    reading.runningLength = declared
                    return reading
                }
                let bodyStart = position + prefixBytes
                let bodyEnd = bodyStart + Int(declared)
                guard isRequest(sample[bodyStart..<bodyEnd]) else {
                    reading.ending = .damaged
                    reading.damagedRecordEndsInput = atEnd && bodyEnd == sample.count
                    return reading
                }
                reading.records += 1
                if declared > 0 { reading.nonEmptyRecords += 1 }
                position = bodyEnd
            }
        }
        return reading
    }

    /// A whole sample that is one request with something known in it: items, or no unknown fields (three
    /// bytes of a cut-off varint file can read as a message of one unknown field).
    private func isBareRequest(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBytes { buffer in
            OTLPSignal.allCases.contains { signal in
                guard let scan = decoder.scanSummary(buffer, as: signal) else { return false }
                return scan.items > 0 || scan.unknownFields == 0
            }
        }
    }

    private func isRequest(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBytes { buffer in
            // Valid as any signal; an ambiguous request (one empty ResourceSpans) still fits.
            OTLPSignal.allCases.contains { (try? decoder.check(buffer, as: $0)) != nil }
        }
    }
}
