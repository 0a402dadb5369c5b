/// Reads OTLP requests from a file or stream: any framing, gzip or zstd or neither, traces, logs or metrics.
///
/// Compression is detected from the first bytes unless given (``OTLPReaderOptions/compression``): a whole
/// stream of gzip members or zstd frames is decompressed as it is read; a `u32be` file whose records are each
/// one zstd frame (the Collector's file exporter with `compression: zstd`) has each record decompressed, and a
/// decompressed record that starts with `{` is read as OTLP JSON (the Collector length-prefixes JSON when it
/// compresses).
///
/// The input is read in bounded chunks, so files far larger than memory stream through. Every complete,
/// valid record is delivered in order; at the first fault ``next()`` throws an ``OTLPReadError`` that names
/// the record index (= records delivered before it), the byte offset and the problem, and the reader
/// ends. An empty input holds zero records.
///
/// Unless given, the signal is decided per stream from the content: the first record that only one signal
/// reads decides. While records read as both or hold no items, the reader
/// reads ahead (up to 1,024 records and 16 MiB) for one that decides;
/// failing that, a whole-token file name hint (`traces`, `spans`, `logs`, `metrics`, … in the name), then records that lean to a
/// signal, decide. Records with no content at all are read as traces until something decides; other
/// content that nothing decides is an ``OTLPReadError/Code/ambiguousSignal`` error. Once decided, a record
/// of another signal is ``OTLPReadError/Code/wrongKind`` (after records of the decided signal, its message
/// says the signal changes at this record when metrics are involved).
///
/// ```swift
/// // Compiled copy: Tests/DocumentationExamples/OTLPWire/OTLPWireDocComments.swift
/// func countSpansInAFile(at path: String) throws -> Int {
///     let reader = try OTLPRecordReader(path: path)  // "traces.u32be.bin.gz": framing and compression detected
///     var spans = 0
///     while let record = try reader.next() { spans += record.payload.itemCount }
///     return spans
/// }
/// ```
public final class OTLPRecordReader {
    /// The framing in use (given or detected).
    package let framing: OTLPFraming
    /// Whether the input is compressed (given, or detected from its first bytes).
    package var isCompressed: Bool { compression != .none }
    /// The compression in use (given or detected); gzip around zstd records reads as ``OTLPFileCompression/zstdRecords``.
    package let compression: OTLPFileCompression
    /// The signal in use; `nil` until one is given or detected.
    package private(set) var signal: OTLPSignal?
    /// The options the reader was opened with: its limits, and the framing and signal if they were given.
    package let options: OTLPReaderOptions

    private let records: OTLPRawRecordReader
    private let inflater: GzipInflater?
    private let zstdStream: ZstdDecompressor?
    /// Whether each record is one zstd frame, decompressed as it is read.
    private let zstdRecords: Bool
    /// Bytes of zstd records read, and what they decompressed to (for the limits over the whole file).
    private var zstdRecordBytesIn = 0
    private var zstdRecordBytesOut = 0
    /// 1 once a record was read but could not be decompressed (it was not delivered).
    private var undeliveredRecords = 0
    private let decoder: OTLPDecoder
    private let jsonDecoder: OTLPJSONDecoder
    /// The signal a file name token announces, used only when the content does not decide.
    private let nameHint: OTLPSignal?
    private var finished = false
    /// A fault found before the first record (another compressor's magic number), thrown by the first read.
    private var startFault: OTLPReadError?
    /// Records read ahead while the signal was undecided, delivered before any further input.
    private var readAhead: [OTLPRawRecord] = []
    /// A fault met while reading ahead, thrown once the records before it are delivered.
    private var readAheadFault: OTLPReadError?
    /// Records up to this index are read as traces for want of evidence (they have no content).
    private var provisionalThrough = -1

    /// Most records read ahead to find one that decides the signal.
    static let maxReadAheadRecords = 1024
    /// Most bytes of records read ahead to find one that decides the signal (one more record may pass it).
    static let maxReadAheadBytes = 16 << 20
    /// protobuf-c's memory for one record at a time, reused across records.
    private let arena = ProtobufCArena(minimumChunkSize: 1 << 20)

    /// Opens `path` (`-` for standard input).
    public convenience init(path: String, options: OTLPReaderOptions = .default) throws(OTLPReadError) {
        try options.validate()
        try self.init(source: try OTLPFileSource(path: path), name: path == "-" ? nil : path, options: options)
    }

    /// Reads from `source`; `name` (a file name) helps detect the framing and signal. Options outside their
    /// documented ranges are refused with ``OTLPReadError/Code/invalidOptions`` before anything is read.
    public init(source: any OTLPByteSource, name: String? = nil, options: OTLPReaderOptions = .default) throws(OTLPReadError) {
        try options.validate()
        self.options = options
        decoder = OTLPDecoder(options: options.decoding)
        jsonDecoder = OTLPJSONDecoder(options: options.decoding)
        nameHint = name.flatMap(OTLPSignal.fromFileName)
        signal = options.signal

        let head = source.readUpTo(ForeignCompression.maxMagicBytes)
        let raw = PrefixedSource(prefix: head.bytes, source: source, pendingError: head.error)
        var stream: any OTLPByteSource = raw
        let given = options.compression
        var streamCompression = OTLPFileCompression.none
        if given == .gzip || (given == nil && OTLPGzip.isCompressed(head.bytes)) {
            let inflater = GzipInflater(
                source: raw, maxDecompressedBytes: options.maxDecompressedBytes, maxInflationRatio: options.maxInflationRatio)
            self.inflater = inflater
            self.zstdStream = nil
            stream = inflater
            streamCompression = .gzip
        } else if given == .zstd || (given == nil && OTLPZstd.startsFrame(head.bytes)) {
            let decompressor = ZstdDecompressor(
                source: raw, maxDecompressedBytes: options.maxDecompressedBytes, maxInflationRatio: options.maxInflationRatio)
            self.inflater = nil
            self.zstdStream = decompressor
            stream = decompressor
            streamCompression = .zstd
        } else {
            inflater = nil
            zstdStream = nil
            startFault = ForeignCompression.fault(head: head.bytes)
        }
        // Records of one zstd frame each: a u32be prefix, then a frame's magic number.
        var zstdRecords = given == .zstdRecords
        if given == nil && (options.framing ?? .u32be) == .u32be {
            let inner = stream.readUpTo(8)
            stream = PrefixedSource(prefix: inner.bytes, source: stream, pendingError: inner.error)
            zstdRecords = inner.bytes.count == 8 && OTLPZstd.startsFrame(inner.bytes[4...])
        }
        self.zstdRecords = zstdRecords
        compression = zstdRecords ? .zstdRecords : streamCompression

        var framing = zstdRecords ? .u32be : options.framing ?? name.flatMap(OTLPFraming.fromFileName)
        var recordSource = stream
        var recordFraming = framing
        if framing == nil {
            let peekSize = 1 << 20
            let sample = stream.readUpTo(peekSize)
            let detector = FramingDetector(decoder: decoder, maxRecordBytes: options.decoding.maxRecordBytes)
            framing = detector.detect(sample.bytes, atEnd: sample.bytes.count < peekSize)
            recordFraming = framing
            // One pretty-printed JSON request (an OTLP example file) is read whole, as one record.
            if framing == .jsonl && detector.isJSONDocument(sample.bytes) { recordFraming = .unframed }
            // A fault met while sampling is reported after the records before it.
            recordSource = PrefixedSource(prefix: sample.bytes, source: stream, pendingError: sample.error)
        }
        self.framing = framing!
        records = OTLPRawRecordReader(
            source: recordSource, framing: recordFraming!, maxRecordBytes: options.decoding.maxRecordBytes,
            maxLineBytes: options.maxLineBytes, chunkSize: options.chunkSize)
    }

    /// Records delivered so far.
    package var recordsRead: Int { records.recordsRead - readAhead.count - undeliveredRecords }

    /// Compressed bytes consumed so far (gzip or zstd stream input, including records read ahead to decide the
    /// signal), or stream bytes.
    package var inputBytesRead: Int { inflater?.fileOffset ?? zstdStream?.fileOffset ?? streamBytesRead }

    /// Decompressed stream bytes up to the next record to deliver.
    package var streamBytesRead: Int { readAhead.first?.streamOffset ?? records.streamOffset }

    /// The next record, decoded; `nil` at the end of the input.
    public func next() throws(OTLPReadError) -> OTLPRecord? {
        guard let raw = try nextRaw() else { return nil }
        return try located(raw) { () throws(OTLPReadError) in
            let signal = try signalFor(raw)
            let payload: OTLPPayload
            do throws(OTLPReadError) {
                payload = try decode(raw, as: signal)
            } catch {
                throw signalChange(raw, from: signal) ?? error
            }
            // A metrics request can read as spans (with IDs, without times): never deliver it so.
            if case .traces(let traces) = payload, !isJSON(raw), traces.couldBeMetricsReadAsTraces,
                let change = signalChange(raw, from: signal)
            {
                throw change
            }
            return OTLPRecord(index: raw.index, streamOffset: raw.streamOffset, byteCount: raw.bytes.count, payload: payload)
        }
    }

    /// The request `raw` holds, decoded as `signal`.
    private func decode(_ raw: OTLPRawRecord, as signal: OTLPSignal) throws(OTLPReadError) -> OTLPPayload {
        let payload: OTLPPayload
        switch (isJSON(raw) ? .jsonl : framing, signal) {
        case (.jsonl, .traces):
            payload = .traces(
                try raw.bytes.withUnsafeBytes { b in Result { () throws(OTLPReadError) in try jsonDecoder.decodeTraces(b) } }.get())
        case (.jsonl, .logs):
            payload = .logs(
                try raw.bytes.withUnsafeBytes { b in Result { () throws(OTLPReadError) in try jsonDecoder.decodeLogs(b) } }.get())
        case (_, .traces):
            payload = .traces(
                try raw.bytes.withUnsafeBytes { b in Result { () throws(OTLPReadError) in try decoder.decodeTraces(b, arena: arena) } }
                    .get())
        case (_, .logs):
            payload = .logs(
                try raw.bytes.withUnsafeBytes { b in Result { () throws(OTLPReadError) in try decoder.decodeLogs(b, arena: arena) } }
                    .get())
        case (.jsonl, .metrics):
            payload = .metrics(
                try raw.bytes.withUnsafeBytes { b in Result { () throws(OTLPReadError) in try jsonDecoder.decodeMetrics(b) } }.get())
        case (_, .metrics):
            payload = .metrics(
                try raw.bytes.withUnsafeBytes { b in
                    Result { () throws(OTLPReadError) in try decoder.decodeMetrics(b, arena: arena) }
                }.get())
        }
        return payload
    }

    /// When `raw`, read as `signal`, is a metrics request while `signal` is traces or logs (or the other way
    /// round), or a request of a signal the reader does not read (profiles): the error that says so, and, after
    /// records of `signal`, that the signal changes at this record (the error is located at the record's index
    /// and offset). `nil` when `raw` is no such request. (A traces record among logs, or the other way round,
    /// is reported by decoding as `wrong_kind`.)
    private func signalChange(_ raw: OTLPRawRecord, from signal: OTLPSignal) -> OTLPReadError? {
        let kind: String
        let error: OTLPReadError
        switch evidence(raw) {
        case .unsupported(let foreign, let message):
            kind = foreign
            error = OTLPReadError(.unsupportedSignal, message)
        case .decisive(let other) where other != signal && (other == .metrics || signal == .metrics):
            kind = "\(other)"
            error = OTLPReadError(.wrongKind, "this is a \(other) request, not \(signal)")
        default:
            return nil
        }
        guard raw.index > 0 && recordsRead > 0 else { return error }
        return OTLPReadError(error.code, "the signal changes from \(signal) to \(kind) at this record: " + error.message)
    }

    /// Checks the next record as thoroughly as ``next()`` (framing, limits, wire format, UTF-8, kind; JSON is
    /// parsed) without building the model for protobuf records. Returns its item count, `nil` at the end.
    ///
    /// A protobuf record is judged by the pre-scan alone, not unpacked by protobuf-c: the scan refuses
    /// everything protobuf-c 1.4.1's unpack refuses (overlong tags and length prefixes, packed runs that do not
    /// divide into elements, mismatched wire types, groups, its field-count limit; see `COTLPShims_scan`), and
    /// counts the items unpack would hold, which `ScanUnpackAgreementTests` checks on the test vectors and
    /// thousands of mutations of them.
    package func validateNext() throws(OTLPReadError) -> (index: Int, items: Int)? {
        if let signal, readsInPlace { return try validateNextInPlace(as: signal) }
        guard let raw = try nextRaw() else { return nil }
        let checked = try check(raw, unpacking: false)
        return (raw.index, checked.items)
    }

    /// Checks the next record as ``validateNext()`` does and returns it with its bytes as read (a protobuf
    /// message, or a JSON line without its newline), ready to be sent on as it is; `nil` at the end.
    package func nextChecked() throws(OTLPReadError) -> OTLPCheckedRecord? {
        guard let raw = try nextRaw() else { return nil }
        let checked = try check(raw, unpacking: true)
        return OTLPCheckedRecord(
            index: raw.index, streamOffset: raw.streamOffset, bytes: raw.bytes, signal: checked.signal, itemCount: checked.items,
            isJSON: isJSON(raw))
    }

    /// Whether the next record can be checked where it lies in the read buffer: a length-prefixed protobuf
    /// record (not a zstd one), with nothing read ahead or pending before it.
    private var readsInPlace: Bool {
        (framing == .u32be || framing == .varint) && !zstdRecords && readAhead.isEmpty && startFault == nil
            && readAheadFault == nil
    }

    /// ``validateNext()`` for a record checked in place (no copy of it is made); the signal is known.
    private func validateNextInPlace(as signal: OTLPSignal) throws(OTLPReadError) -> (index: Int, items: Int)? {
        guard !finished else { return nil }
        do {
            let checked = try records.withNextInPlace { (index, streamOffset, bytes) throws(OTLPReadError) in
                let items = try located(index: index, streamOffset: streamOffset) { () throws(OTLPReadError) in
                    try checkedItems(
                        as: signal, protobuf: bytes, raw: { OTLPRawRecord(index: index, streamOffset: streamOffset, bytes: Array(bytes)) },
                        checks: { () throws(OTLPReadError) in try decoder.check(bytes, as: signal) })
                }
                return (index, items)
            }
            if checked == nil { finished = true }
            return checked
        } catch {
            finished = true
            var located = error
            if located.recordIndex == nil { located.recordIndex = records.recordsRead }
            throw located
        }
    }

    /// The checks of ``validateNext()`` (`unpacking` false: the pre-scan's verdict) or of ``nextChecked()``
    /// (`unpacking`: protobuf-c unpacks the record too, before it is sent on).
    private func check(_ raw: OTLPRawRecord, unpacking: Bool) throws(OTLPReadError) -> (signal: OTLPSignal, items: Int) {
        try located(raw) { () throws(OTLPReadError) in
            let signal = try signalFor(raw)
            let json = isJSON(raw)
            let items = try raw.bytes.withUnsafeBytes { bytes in
                Result { () throws(OTLPReadError) in
                    try checkedItems(
                        as: signal, protobuf: json ? nil : bytes, raw: { raw },
                        checks: { () throws(OTLPReadError) in try checkDecodes(raw, as: signal, unpacking: unpacking) })
                }
            }.get()
            return (signal, items)
        }
    }

    /// A record's item count by `checks`, or the error that says the signal changes at it, for ``check(_:unpacking:)``
    /// and ``validateNextInPlace(as:)`` alike (regression: validate called a metrics record after traces a
    /// malformed span where print said wrong_kind). The signal changes when `checks` fail on a record of
    /// another signal, or when a traces record in protobuf (`protobuf`, `nil` for JSON) is a metrics request:
    /// one can read as spans, and the metrics pre-scan rules that out first, cheaply for spans with IDs. `raw`
    /// makes the record (a copy, when checked in place) only on those paths.
    private func checkedItems(
        as signal: OTLPSignal, protobuf: UnsafeRawBufferPointer?, raw: () -> OTLPRawRecord, checks: () throws(OTLPReadError) -> Int
    ) throws(OTLPReadError) -> Int {
        let items: Int
        do throws(OTLPReadError) {
            items = try checks()
        } catch {
            throw signalChange(raw(), from: signal) ?? error
        }
        if signal == .traces, let protobuf, (decoder.scanSummary(protobuf, asKind: .metrics)?.items ?? 0) > 0,
            let change = signalChange(raw(), from: signal)
        {
            throw change
        }
        return items
    }

    /// ``check(_:unpacking:)``'s checks of `raw` as `signal`: its item count.
    private func checkDecodes(_ raw: OTLPRawRecord, as signal: OTLPSignal, unpacking: Bool) throws(OTLPReadError) -> Int {
        if isJSON(raw) {
            let payload: OTLPPayload = try raw.bytes.withUnsafeBytes { b in
                Result { () throws(OTLPReadError) in
                    switch signal {
                    case .traces: .traces(try jsonDecoder.decodeTraces(b))
                    case .logs: .logs(try jsonDecoder.decodeLogs(b))
                    case .metrics: .metrics(try jsonDecoder.decodeMetrics(b))
                    }
                }
            }.get()
            return payload.itemCount
        }
        // The same checks decoding makes, then (when `unpacking`) a real unpack by protobuf-c.
        return try raw.bytes.withUnsafeBytes { b in
            Result { () throws(OTLPReadError) in
                unpacking ? try decoder.checkAndUnpack(b, as: signal, arena: arena) : try decoder.check(b, as: signal)
            }
        }.get()
    }

    private func nextRaw() throws(OTLPReadError) -> OTLPRawRecord? {
        guard !finished else { return nil }
        if !readAhead.isEmpty { return readAhead.removeFirst() }
        do throws(OTLPReadError) {
            if let fault = startFault ?? readAheadFault { throw fault }
            guard let raw = try readRecord() else { finished = true; return nil }
            return raw
        } catch {
            finished = true
            throw error
        }
    }

    /// Whether `raw` holds OTLP JSON: a JSON line, or a zstd record whose message starts with `{` (protobuf's
    /// first byte would be field 15 starting a group, which no OTLP request has).
    private func isJSON(_ raw: OTLPRawRecord) -> Bool {
        if framing == .jsonl { return true }
        guard zstdRecords else { return false }
        return raw.bytes.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 } == UInt8(ascii: "{")
    }

    /// The next record from the input (a zstd record decompressed), its error located at the record index.
    private func readRecord() throws(OTLPReadError) -> OTLPRawRecord? {
        let next: OTLPRawRecord?
        do {
            next = try records.next()
        } catch {
            var located = error
            if located.recordIndex == nil { located.recordIndex = records.recordsRead }
            throw located
        }
        guard var raw = next, zstdRecords else { return next }
        do {
            raw.bytes = try decompressRecord(raw.bytes)
        } catch {
            undeliveredRecords = 1
            var located = error
            if located.offsetIn == .record, let inner = located.byteOffset {
                located.message += " (at byte \(inner) of the record's zstd frame)"
            }
            located.recordIndex = raw.index
            located.byteOffset = raw.streamOffset
            located.offsetIn = .stream
            throw located
        }
        return raw
    }

    /// The message of a zstd record, under the record size limit and, over all records, the decompressed size
    /// and inflation ratio limits.
    private func decompressRecord(_ frame: [UInt8]) throws(OTLPReadError) -> [UInt8] {
        guard !frame.isEmpty else { return [] }
        guard OTLPZstd.startsFrame(frame) else {
            throw OTLPReadError(.zstdCorrupt, "the record is not a zstd frame (a file of zstd records has one frame in each)")
        }
        let maxRecordBytes = options.decoding.maxRecordBytes
        let remaining = options.maxDecompressedBytes - zstdRecordBytesOut
        let message: [UInt8]
        do {
            message = try OTLPZstd.decompress(frame, maxBytes: min(maxRecordBytes, remaining))
        } catch  where error.code == .zstdTooLarge && error.cause == nil && maxRecordBytes < remaining {
            throw OTLPReadError(
                .recordTooLarge, "the record's zstd frame decompresses to more than the limit of \(maxRecordBytes) bytes",
                byteOffset: error.byteOffset, offsetIn: .record)
        } catch  where error.code == .zstdTooLarge && error.cause == nil {
            // The budget left was the smaller bound: name the limit the user set, not what was left of it.
            throw OTLPReadError(
                .zstdTooLarge,
                "the zstd records decompress to more than the limit of \(options.maxDecompressedBytes) bytes (\(zstdRecordBytesOut) before this record)",
                byteOffset: error.byteOffset, offsetIn: .record)
        }
        zstdRecordBytesIn += frame.count
        zstdRecordBytesOut += message.count
        let ratio = options.maxInflationRatio
        if zstdRecordBytesOut > Self.ratioGraceBytes && zstdRecordBytesOut / max(zstdRecordBytesIn, 1) > ratio {
            throw OTLPReadError(
                .zstdTooLarge,
                "\(zstdRecordBytesIn) bytes of zstd records decompressed to \(zstdRecordBytesOut): more than the limit of \(ratio) to 1 (a zstd bomb?)"
            )
        }
        return message
    }

    /// Decompressed bytes allowed before the inflation ratio is checked (as for compressed streams).
    static let ratioGraceBytes = 16 << 20

    private func located<T>(_ raw: OTLPRawRecord, _ body: () throws(OTLPReadError) -> T) throws(OTLPReadError) -> T {
        try located(index: raw.index, streamOffset: raw.streamOffset, body)
    }

    /// `body`'s error located at the record `index` that starts at `streamOffset`; the reader ends with it.
    private func located<T>(
        index: Int, streamOffset: Int, _ body: () throws(OTLPReadError) -> T
    ) throws(OTLPReadError) -> T {
        do {
            return try body()
        } catch {
            finished = true
            var located = error
            if located.offsetIn == .record, let inner = located.byteOffset, inner > 0 {
                located.message += " (at byte \(inner) of the record)"
            }
            located.recordIndex = index
            located.byteOffset = streamOffset
            located.offsetIn = .stream
            throw located
        }
    }

    private func evidence(_ raw: OTLPRawRecord) -> OTLPSignalEvidence {
        raw.bytes.withUnsafeBytes { bytes in
            isJSON(raw) ? jsonDecoder.signalEvidence(bytes) : decoder.signalEvidence(bytes)
        }
    }

    /// The signal to read `raw` as: given, decided earlier, or decided now from `raw` and the records after it.
    private func signalFor(_ raw: OTLPRawRecord) throws(OTLPReadError) -> OTLPSignal {
        if let signal { return signal }
        if raw.index <= provisionalThrough { return .traces }
        let own = evidence(raw)
        switch own {
        case .decisive(let decided):
            signal = decided
            return decided
        case .unsupported(_, let message):
            throw OTLPReadError(.unsupportedSignal, message)
        case .invalid(let likelier):
            // Decoding reports the damage, in the terms of the hinted or the likelier signal.
            return nameHint ?? likelier
        case .leaning, .silent:
            break
        }
        // The content of this record does not decide: weigh the records after it (reading ahead if none are).
        if readAhead.isEmpty { readAheadForEvidence() }
        let window = [own] + readAhead.map(evidence)
        if let decided = window.lazy.compactMap({ if case .decisive(let signal) = $0 { signal } else { nil } }).first
            ?? nameHint
            ?? window.lazy.compactMap({ if case .leaning(let signal) = $0 { signal } else { nil } }).first
        {
            signal = decided
            return decided
        }
        // Nothing but records without items (and perhaps damage or another signal, reported when reached).
        let emptyCount = window.prefix { $0 == .silent(isEmpty: true) }.count
        guard emptyCount == 0 else {
            provisionalThrough = raw.index + emptyCount - 1
            return .traces
        }
        let last = raw.index + window.count - 1
        throw OTLPReadError(
            .ambiguousSignal,
            "the content reads as traces and as logs alike (no spans or log records in records \(raw.index)...\(last)) "
                + "and the file name has no traces or logs token: give the signal (otlp-dump --signal traces|logs|metrics)")
    }

    /// Reads records ahead into ``readAhead`` until one decides the signal, damage, the end of the input, or
    /// the read-ahead limits.
    private func readAheadForEvidence() {
        var bytes = 0
        while readAhead.count < Self.maxReadAheadRecords && bytes < Self.maxReadAheadBytes && readAheadFault == nil {
            let raw: OTLPRawRecord?
            do {
                raw = try readRecord()
            } catch {
                readAheadFault = error
                return
            }
            guard let raw else { return }
            readAhead.append(raw)
            bytes += raw.bytes.count
            switch evidence(raw) {
            case .decisive, .invalid, .unsupported: return
            case .leaning, .silent: continue
            }
        }
    }
}
