/// Guesses the framing of a stream from its first bytes (up to 1 MiB).
///
/// A framing fits when every record complete in the sample is a valid request of either signal; `u32be` is
/// tried first (the default), then `varint`, then one bare message. Damaged input that fits none is read as
/// `u32be` unless it looks like a bare message (starts with field 1, length-delimited), so the reader
/// reports the fault in the likeliest terms.
struct FramingDetector {
    let decoder: OTLPDecoder
    let maxRecordBytes: Int

    func detect(_ sample: [UInt8], atEnd: Bool) -> OTLPFraming {
        guard let first = sample.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else { return .u32be }
        if first == UInt8(ascii: "{") { return .jsonl }  // see isJSONDocument
        if fits(sample, atEnd: atEnd, prefix: u32Prefix) { return .u32be }
        if fits(sample, atEnd: atEnd, prefix: varintPrefix) { return .varint }
        if atEnd, isRequest(sample[...]) { return .unframed }
        return sample[0] == 0x0A ? .unframed : .u32be
    }

    /// `true` when a JSON sample is one multi-line document rather than JSON lines: its first line is
    /// not a complete JSON value.
    func isJSONDocument(_ sample: [UInt8]) -> Bool {
        guard let start = sample.firstIndex(of: UInt8(ascii: "{")) else { return false }
        let end = sample[start...].firstIndex(of: 0x0A) ?? sample.endIndex
        let firstLine = sample[start..<end]
        return firstLine.withUnsafeBufferPointer { (try? JSONParser.parse($0, maxDepth: 1024)) == nil }
    }

    private func u32Prefix(_ sample: ArraySlice<UInt8>) -> (prefix: Int, length: Int)? {
        guard sample.count >= 4 else { return nil }
        let length = sample.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        return (4, length)
    }

    private func varintPrefix(_ sample: ArraySlice<UInt8>) -> (prefix: Int, length: Int)? {
        var length = 0
        for (index, byte) in sample.prefix(10).enumerated() {
            length |= Int(byte & 0x7F) << (7 * index)
            if byte & 0x80 == 0 { return (index + 1, length) }
        }
        return nil
    }

    private func fits(_ sample: [UInt8], atEnd: Bool, prefix: (ArraySlice<UInt8>) -> (prefix: Int, length: Int)?) -> Bool {
        var position = 0
        var records = 0
        while position < sample.count {
            // A 10-byte varint can set the sign bit: a negative length is no record.
            guard let (prefixLength, length) = prefix(sample[position...]), length >= 0, length <= maxRecordBytes else { return false }
            let end = position + prefixLength + length
            if end > sample.count {
                // A record running past the sample: fine if more input follows and one record was checked.
                return !atEnd && (records > 0 || length > sample.count / 2)
            }
            guard isRequest(sample[(position + prefixLength)..<end]) else { return false }
            records += 1
            position = end
        }
        return records > 0
    }

    private func isRequest(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBytes { buffer in
            // Valid as either signal; an ambiguous request (one empty ResourceSpans) still fits.
            (try? decoder.check(buffer, as: .traces)) != nil || (try? decoder.check(buffer, as: .logs)) != nil
        }
    }
}
