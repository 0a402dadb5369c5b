/// Reads OTLP requests from a file or stream: any framing, gzip or not, traces or logs.
///
/// The input is read in bounded chunks, so files far larger than memory stream through. Every complete,
/// valid record is delivered in order; at the first fault ``next()`` throws an ``OTLPReadError`` that names
/// the record index (= records delivered before it), the byte offset and the problem, and the reader
/// ends. An empty input holds zero records.
///
/// ```swift
/// let reader = try OTLPStreamReader(path: "traces.u32be.bin.gz")
/// while let record = try reader.next() { ... }
/// ```
public final class OTLPStreamReader {
    /// The framing in use (given or detected).
    public let framing: OTLPFraming
    /// Whether the input is gzip-compressed (detected from its first bytes).
    public let isCompressed: Bool
    /// The signal in use; `nil` until one is given or detected.
    public private(set) var signal: OTLPSignal?
    public let options: OTLPReaderOptions

    private let records: OTLPRecordReader
    private let inflater: GzipInflater?
    private let decoder: OTLPDecoder
    private let jsonDecoder: OTLPJSONDecoder
    private let signalHint: OTLPSignal
    private var finished = false
    /// protobuf-c's memory for one record at a time, reused across records.
    private let arena = ProtobufCArena(minimumChunkSize: 1 << 20)

    /// Opens `path` (`-` for standard input).
    public convenience init(path: String, options: OTLPReaderOptions = OTLPReaderOptions()) throws(OTLPReadError) {
        try options.validate()
        try self.init(source: try OTLPFileSource(path: path), name: path == "-" ? nil : path, options: options)
    }

    /// Reads from `source`; `name` (a file name) helps detect the framing and signal. Options outside their
    /// documented ranges are refused with ``OTLPReadError/Kind/invalidOptions`` before anything is read.
    public init(source: any OTLPByteSource, name: String? = nil, options: OTLPReaderOptions = OTLPReaderOptions()) throws(OTLPReadError) {
        try options.validate()
        self.options = options
        decoder = OTLPDecoder(options: options.decoding)
        jsonDecoder = OTLPJSONDecoder(options: options.decoding)
        let lowerName = name?.split(separator: "/").last.map { $0.lowercased() } ?? ""
        signalHint = lowerName.contains("log") ? .logs : .traces
        signal = options.signal

        let head = source.readUpTo(2)
        let raw = PrefixedSource(prefix: head.bytes, source: source, pendingError: head.error)
        let stream: any OTLPByteSource
        if head.bytes == [0x1F, 0x8B] {
            let inflater = GzipInflater(
                source: raw, maxDecompressedBytes: options.maxDecompressedBytes, maxInflationRatio: options.maxInflationRatio)
            self.inflater = inflater
            stream = inflater
            isCompressed = true
        } else {
            inflater = nil
            stream = raw
            isCompressed = false
        }

        var framing = options.framing ?? name.flatMap(OTLPFraming.fromFileName)
        var recordSource = stream
        var recordFraming = framing
        if framing == nil {
            let peekSize = 1 << 20
            let sample = stream.readUpTo(peekSize)
            let detector = FramingDetector(decoder: decoder, maxRecordBytes: options.decoding.maxMessageBytes)
            framing = detector.detect(sample.bytes, atEnd: sample.bytes.count < peekSize)
            recordFraming = framing
            // One pretty-printed JSON request (an OTLP example file) is read whole, as one record.
            if framing == .jsonl && detector.isJSONDocument(sample.bytes) { recordFraming = .unframed }
            // A fault met while sampling is reported after the records before it.
            recordSource = PrefixedSource(prefix: sample.bytes, source: stream, pendingError: sample.error)
        }
        self.framing = framing!
        records = OTLPRecordReader(
            source: recordSource, framing: recordFraming!, maxRecordBytes: options.decoding.maxMessageBytes,
            maxLineBytes: options.maxLineBytes, chunkSize: options.chunkSize)
    }

    /// Records delivered so far.
    public var recordsRead: Int { records.recordsRead }

    /// Compressed bytes consumed so far (gzip input), or stream bytes.
    public var inputBytesRead: Int { inflater?.fileOffset ?? records.streamOffset }

    /// Decompressed stream bytes consumed so far.
    public var streamBytesRead: Int { records.streamOffset }

    /// The next record, decoded; `nil` at the end of the input.
    public func next() throws(OTLPReadError) -> OTLPRecord? {
        guard let raw = try nextRaw() else { return nil }
        return try located(raw) { () throws(OTLPReadError) in
            let signal = try signalFor(raw)
            let payload: OTLPPayload
            switch (framing, signal) {
            case (.jsonl, .traces): payload = .traces(try raw.bytes.withUnsafeBytes { b in Result { () throws(OTLPReadError) in try jsonDecoder.decodeTraces(b) } }.get())
            case (.jsonl, .logs): payload = .logs(try raw.bytes.withUnsafeBytes { b in Result { () throws(OTLPReadError) in try jsonDecoder.decodeLogs(b) } }.get())
            case (_, .traces): payload = .traces(try raw.bytes.withUnsafeBytes { b in Result { () throws(OTLPReadError) in try decoder.decodeTraces(b, arena: arena) } }.get())
            case (_, .logs): payload = .logs(try raw.bytes.withUnsafeBytes { b in Result { () throws(OTLPReadError) in try decoder.decodeLogs(b, arena: arena) } }.get())
            }
            return OTLPRecord(index: raw.index, streamOffset: raw.streamOffset, byteCount: raw.bytes.count, payload: payload)
        }
    }

    /// Checks the next record as thoroughly as ``next()`` (framing, limits, wire format, UTF-8, kind; JSON is
    /// parsed) without building the model for protobuf records. Returns its item count, `nil` at the end.
    public func validateNext() throws(OTLPReadError) -> (index: Int, items: Int)? {
        guard let raw = try nextRaw() else { return nil }
        return try located(raw) { () throws(OTLPReadError) in
            let signal = try signalFor(raw)
            if framing == .jsonl {
                let payload: OTLPPayload = try raw.bytes.withUnsafeBytes { b in
                    Result { () throws(OTLPReadError) in
                        signal == .traces ? .traces(try jsonDecoder.decodeTraces(b)) : .logs(try jsonDecoder.decodeLogs(b))
                    }
                }.get()
                return (raw.index, payload.itemCount)
            }
            // The same checks decoding makes, then a real unpack by protobuf-c.
            let items = try raw.bytes.withUnsafeBytes { b in
                Result { () throws(OTLPReadError) in try decoder.checkAndUnpack(b, as: signal, arena: arena) }
            }.get()
            return (raw.index, items)
        }
    }

    private func nextRaw() throws(OTLPReadError) -> OTLPRawRecord? {
        guard !finished else { return nil }
        do {
            guard let raw = try records.next() else { finished = true; return nil }
            return raw
        } catch {
            finished = true
            var located = error
            if located.recordIndex == nil { located.recordIndex = records.recordsRead }
            throw located
        }
    }

    private func located<T>(_ raw: OTLPRawRecord, _ body: () throws(OTLPReadError) -> T) throws(OTLPReadError) -> T {
        do {
            return try body()
        } catch {
            finished = true
            var located = error
            if located.offsetIn == .record, let inner = located.byteOffset, inner > 0 {
                located.message += " (at byte \(inner) of the record)"
            }
            located.recordIndex = raw.index
            located.byteOffset = raw.streamOffset
            located.offsetIn = .stream
            throw located
        }
    }

    private func signalFor(_ raw: OTLPRawRecord) throws(OTLPReadError) -> OTLPSignal {
        if let signal { return signal }
        let detected: OTLPSignal? = raw.bytes.withUnsafeBytes { bytes in
            framing == .jsonl ? jsonDecoder.detectSignal(bytes) : decoder.detectSignal(bytes)
        }
        guard let detected else {
            // Empty requests say nothing; anything else that is neither is reported as the likelier one.
            if raw.bytes.isEmpty || raw.bytes == Array("{}".utf8) { return signalHint }
            signal = signalHint
            return signalHint
        }
        signal = detected
        return detected
    }
}
