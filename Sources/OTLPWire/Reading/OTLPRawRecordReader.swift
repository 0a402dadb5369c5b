#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits a byte stream into framed records, in bounded chunks, telling a clean end from a cut-off record.
///
/// Length prefixes are checked against `maxRecordBytes` before anything is read or allocated for the
/// record, so a damaged or hostile prefix (`0xFFFFFFFF`) costs nothing.
package final class OTLPRawRecordReader {
    /// How records are delimited in the stream.
    package let framing: OTLPFraming
    /// The largest record accepted, in bytes (as clamped into ``OTLPDecodingOptions/maxRecordBytesRange``).
    package let maxRecordBytes: Int
    /// The longest JSON line accepted, in bytes (as clamped into ``OTLPReaderOptions/maxLineBytesRange``).
    package let maxLineBytes: Int
    private let source: any OTLPByteSource
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var sourceEnded = false
    private let chunkSize: Int
    /// Stream offset of `buffer[start]`.
    private var offset = 0
    private var index = 0
    private var finished = false

    /// Bytes already taken from a source (by format detection) are put back by wrapping it,
    /// as ``OTLPRecordReader`` does. The limits are clamped to their documented ranges
    /// (``OTLPDecodingOptions/maxRecordBytesRange``, ``OTLPReaderOptions/maxLineBytesRange``,
    /// ``OTLPReaderOptions/chunkSizeRange``), so no length computation can overflow.
    package init(
        source: any OTLPByteSource, framing: OTLPFraming, maxRecordBytes: Int = OTLPDecodingOptions.default.maxRecordBytes,
        maxLineBytes: Int = OTLPReaderOptions.default.maxLineBytes, chunkSize: Int = OTLPReaderOptions.default.chunkSize
    ) {
        func clamped(_ value: Int, _ range: ClosedRange<Int>) -> Int { min(max(value, range.lowerBound), range.upperBound) }
        self.source = source
        self.framing = framing
        self.maxRecordBytes = clamped(maxRecordBytes, OTLPDecodingOptions.maxRecordBytesRange)
        self.maxLineBytes = clamped(maxLineBytes, OTLPReaderOptions.maxLineBytesRange)
        let chunkSize = clamped(chunkSize, OTLPReaderOptions.chunkSizeRange)
        self.chunkSize = chunkSize
        buffer = [UInt8](repeating: 0, count: chunkSize)
    }

    /// Records delivered so far.
    package var recordsRead: Int { index }
    /// Bytes of buffer held now (what reading costs in memory; tests hold it to the data that arrived).
    var bufferBytes: Int { buffer.count }
    /// Stream offset just past the last delivered record.
    package var streamOffset: Int { offset }

    private var available: Int { end - start }

    /// Makes at least `count` bytes available from `start`; false when the input ends first.
    private func fill(_ count: Int) throws(OTLPReadError) -> Bool {
        while available < count {
            if sourceEnded { return false }
            if start > 0 {
                // Move the unread bytes to the front; only done when more input is needed.
                let (from, length) = (start, available)
                if length > 0 {
                    buffer.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: $0.baseAddress! + from, byteCount: length) }
                }
                start = 0
                end = length
            }
            // Grow with the data that actually arrives, not to the declared length at once: only when less than
            // a chunk is free, and then at most doubling. A tiny file (or a pipe that delivers 64 KiB per read)
            // claiming a huge record must not cost that much memory.
            if buffer.count - end < chunkSize { grow(to: end + max(chunkSize, min(count - available, buffer.count))) }
            let (from, to) = (end, buffer.count)
            let read = try buffer.withUnsafeMutableBytes { raw in
                Result { () throws(OTLPReadError) in
                    try source.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[from..<to]))
                }
            }.get()
            if read == 0 { sourceEnded = true; return false }
            end += read
        }
        return true
    }

    /// Replaces the buffer with a larger one holding the same first `end` bytes, copied as one block (an
    /// element-wise append of zeros ran at a few MB/s in debug builds).
    private func grow(to count: Int) {
        let kept = end
        buffer = buffer.withUnsafeBytes { old in
            [UInt8](unsafeUninitializedCapacity: count) { storage, initialized in
                let raw = UnsafeMutableRawBufferPointer(storage)
                raw.baseAddress!.copyMemory(from: old.baseAddress!, byteCount: kept)
                _ = memset(raw.baseAddress! + kept, 0, count - kept)
                initialized = count
            }
        }
    }

    /// The next record, or `nil` at a clean end of the stream.
    package func next() throws(OTLPReadError) -> OTLPRawRecord? {
        guard !finished else { return nil }
        do {
            let record: OTLPRawRecord?
            switch framing {
            case .u32be, .varint: record = try nextPrefixed().map { take(prefix: $0.prefix, body: $0.body) }
            case .jsonl: record = try nextLine()
            case .unframed: record = try nextWhole()
            }
            if record == nil { finished = true }
            return record
        } catch {
            finished = true
            throw error
        }
    }

    /// The next `u32be` or `varint` record read in place: its index, stream offset and message bytes, valid only
    /// inside `body` (no copy of the record is made). `nil` at a clean end of the stream; the reader has moved
    /// past the record when `body` runs, so an error `body` throws leaves it there. Only for prefixed framings.
    package func withNextInPlace<R>(
        _ body: (_ index: Int, _ streamOffset: Int, _ bytes: UnsafeRawBufferPointer) throws(OTLPReadError) -> R
    ) throws(OTLPReadError) -> R? {
        precondition(framing == .u32be || framing == .varint, "records are read in place only with a length prefix")
        guard !finished else { return nil }
        let found: (prefix: Int, body: Int)?
        do {
            found = try nextPrefixed()
        } catch {
            finished = true
            throw error
        }
        guard let found else {
            finished = true
            return nil
        }
        let (recordIndex, recordOffset, from) = (index, offset, start + found.prefix)
        start += found.prefix + found.body
        offset += found.prefix + found.body
        index += 1
        // The bytes stay where they are until the next fill, which only a later read makes.
        return try buffer.withUnsafeBytes { raw in
            Result { () throws(OTLPReadError) in
                try body(recordIndex, recordOffset, UnsafeRawBufferPointer(rebasing: raw[from..<(from + found.body)]))
            }
        }.get()
    }

    private func take(prefix: Int, body: Int) -> OTLPRawRecord {
        let bytes = Array(buffer[(start + prefix)..<(start + prefix + body)])
        let record = OTLPRawRecord(index: index, streamOffset: offset, bytes: bytes)
        start += prefix + body
        offset += prefix + body
        index += 1
        return record
    }

    private func error(_ code: OTLPReadError.Code, _ message: String) -> OTLPReadError {
        OTLPReadError(code, message, recordIndex: index, byteOffset: offset)
    }

    /// The next `u32be` or `varint` record: the prefix is decoded by ``OTLPLengthPrefix`` as its bytes
    /// arrive, and the declared length is compared with the limit before anything is read for the body.
    private func nextPrefixed() throws(OTLPReadError) -> (prefix: Int, body: Int)? {
        var wanted = 1
        while true {
            if try !fill(wanted) {
                if available == 0 { return nil }
                throw error(
                    .truncatedLengthPrefix,
                    framing == .u32be
                        ? "the input ends inside a 4-byte length prefix (\(available) of 4 bytes)"
                        : "the input ends inside a varint length prefix (\(available) bytes, the last with its continuation bit set)")
            }
            switch OTLPLengthPrefix.decode(buffer[start..<end], framing: framing) {
            case .incomplete:
                wanted = available + 1
            case .invalid(let message):
                throw error(.badLengthPrefix, message)
            case .length(let declared, let prefixBytes):
                guard declared <= UInt64(clamping: maxRecordBytes) else {
                    throw error(.recordTooLarge, "length prefix declares \(declared) bytes, over the limit of \(maxRecordBytes)")
                }
                // Both fit an Int: the length is at most maxRecordBytes, the prefix at most 10 bytes.
                let body = Int(declared)
                let (total, overflow) = prefixBytes.addingReportingOverflow(body)
                guard !overflow else {
                    throw error(.recordTooLarge, "length prefix declares \(declared) bytes, more than this reader can address")
                }
                guard try fill(total) else {
                    throw error(.truncatedRecord, "length prefix declares \(declared) bytes but only \(available - prefixBytes) follow")
                }
                return (prefixBytes, body)
            }
        }
    }

    private func nextLine() throws(OTLPReadError) -> OTLPRawRecord? {
        while true {
            var scanned = 0
            var newline: Int?
            while newline == nil {
                if let found = buffer[(start + scanned)..<end].firstIndex(of: 0x0A) {
                    newline = found - start
                    break
                }
                scanned = available
                if scanned > maxLineBytes {
                    throw error(.lineTooLong, "line longer than the limit of \(maxLineBytes) bytes")
                }
                if try !fill(available + 1) { break }
            }
            let lineLength = newline ?? available
            if lineLength == 0 && newline == nil { return nil }
            guard lineLength <= maxLineBytes else {
                throw error(.lineTooLong, "line of \(lineLength) bytes, over the limit of \(maxLineBytes)")
            }
            let isBlank = buffer[start..<(start + lineLength)].allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
            if isBlank {
                // Blank lines separate nothing; skip them without counting a record.
                start += lineLength + (newline == nil ? 0 : 1)
                offset += lineLength + (newline == nil ? 0 : 1)
                if newline == nil { return nil }
                continue
            }
            var record = take(prefix: 0, body: lineLength)
            if newline != nil { start += 1; offset += 1 }
            if record.bytes.last == 0x0D { record.bytes.removeLast() }
            return record
        }
    }

    private func nextWhole() throws(OTLPReadError) -> OTLPRawRecord? {
        guard index == 0 else { return nil }
        while try fill(available + 1) {
            if available > maxRecordBytes {
                throw error(.recordTooLarge, "message larger than the limit of \(maxRecordBytes) bytes")
            }
        }
        return take(prefix: 0, body: available)
    }
}
