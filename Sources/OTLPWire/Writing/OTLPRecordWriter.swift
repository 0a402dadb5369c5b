/// Writes OTLP requests to a sink in one of the framings, optionally gzip- or zstd-compressed.
///
/// Each record (length prefix and message, or JSON line) reaches the sink in a single `write`, so a
/// reader never sees half a prefix from a writer that was stopped between calls. With gzip, records are
/// compressed into the current member and ``flush(durable:)`` closes it: a file cut short later still
/// decompresses up to its last flush (a member's bytes reach the sink when it closes). With zstd, each record is
/// one complete zstd frame of its message behind a 4-byte big-endian length of the frame, whatever the framing
/// (`jsonl` makes the frames hold OTLP JSON, with no newline): the layout the OpenTelemetry Collector's file
/// exporter writes with `compression: zstd`, which every record survives on its own.
///
/// The writer never traps: a record its framing cannot hold (over 4 GiB with `u32be`; a JSON line with a
/// newline in it) throws an ``OTLPWriteError/Code/unframeable`` error before any of it is written. It does not apply
/// the readers' size limits (a reader may raise them); `OTLPTelemetry`'s exporter does.
///
/// ```swift
/// // Compiled copy: Tests/DocumentationExamples/OTLPWire/OTLPWireDocComments.swift
/// func writeSpansToAFile(_ spans: [OTLPSpan], resource: OTLPResource, scope: OTLPInstrumentationScope) throws {
///     let writer = OTLPRecordWriter(sink: try OTLPFileSink(path: "traces.u32be.bin"))
///     try writer.write(OTLPTracesData(resource: resource, scope: scope, items: spans))
///     try writer.close()
/// }
/// ```
public final class OTLPRecordWriter {
    /// How records are delimited in the output.
    package let framing: OTLPFraming
    /// Whether the output is gzip-compressed.
    package let isCompressed: Bool
    /// Whether each record is a zstd frame.
    package let isZstd: Bool
    private let zstdCompressor: ZstdCompressor?
    private var frame: [UInt8] = []
    private let sink: any OTLPByteSink
    private let encoder = OTLPEncoder()
    private let jsonEncoder = OTLPJSONEncoder()
    private let deflater: GzipDeflater?
    private var record: [UInt8] = []
    private var compressed: [UInt8] = []
    /// Records written so far.
    package private(set) var recordsWritten = 0
    /// Bytes handed to the sink so far.
    package private(set) var bytesWritten = 0

    /// - Parameters:
    ///   - sink: where the framed records go.
    ///   - framing: default ``OTLPFraming/u32be``.
    ///   - gzip: compress with gzip (one gzip member per flush, and one more per 16 MiB of records between flushes).
    ///     Default `false`.
    ///   - zstd: compress each record into one zstd frame (libzstd's default level 3), framed by a `u32be` length.
    ///     Default `false`. With `gzip` too, the records are zstd frames inside a gzip stream.
    ///   - compressionLevel: gzip level 0...9 (clamped, zlib's scale), default 6. 0 stores: deflate's stored
    ///     blocks, and zstd frames of raw blocks.
    public init(
        sink: any OTLPByteSink, framing: OTLPFraming = .u32be, gzip: Bool = false, zstd: Bool = false, compressionLevel: Int32 = 6
    ) {
        self.sink = sink
        self.framing = framing
        self.isCompressed = gzip
        self.isZstd = zstd
        zstdCompressor = zstd ? ZstdCompressor(level: compressionLevel == 0 ? 0 : ZstdCompressor.defaultLevel) : nil
        deflater = gzip ? GzipDeflater(level: min(max(compressionLevel, 0), 9)) : nil
    }

    /// The largest message a `u32be` length prefix can declare: 4 GiB - 1.
    package static let maxU32BEMessageBytes = Int(UInt32.max)

    /// The length prefix for a message of `messageBytes` bytes in `framing` (empty for `jsonl` and
    /// unframed); throws when the framing cannot declare that length.
    static func lengthPrefix(messageBytes: Int, framing: OTLPFraming) throws(OTLPWriteError) -> [UInt8] {
        var prefix: [UInt8] = []
        guard OTLPLengthPrefix.encode(messageBytes, framing: framing, into: &prefix) else {
            throw .unframeable(
                "a message of \(messageBytes) bytes does not fit a \(framing) length prefix (u32be holds at most \(maxU32BEMessageBytes) bytes)"
            )
        }
        return prefix
    }

    /// Writes one request (either signal) as one record.
    public func write<Item: OTLPSignalItem>(_ data: OTLPSignalData<Item>) throws(OTLPWriteError) {
        if framing == .jsonl {
            try emitJSON(jsonEncoder.encode(data))
        } else {
            try encoder.withEncoded(data) { bytes in Result { () throws(OTLPWriteError) in try emit(bytes) } }.get()
        }
    }

    /// Writes an already encoded record: protobuf message bytes (or, for `jsonl`, one JSON object).
    package func writeEncoded(_ bytes: UnsafeRawBufferPointer) throws(OTLPWriteError) {
        if framing == .jsonl {
            try emitJSON(Array(bytes))
        } else {
            try emit(bytes)
        }
    }

    /// Writes a decoded payload of any signal.
    package func write(_ payload: OTLPPayload) throws(OTLPWriteError) {
        switch payload {
        case .traces(let data): try write(data)
        case .logs(let data): try write(data)
        case .metrics(let data): try write(data)
        }
    }

    /// Closes the current gzip member (if any) and, with `durable`, asks the sink to make the bytes durable.
    public func flush(durable: Bool = false) throws(OTLPWriteError) {
        if let deflater {
            compressed.removeAll(keepingCapacity: true)
            try deflater.finishMember(into: &compressed)
            try put(compressed)
        }
        if durable { try sink.sync() }
    }

    /// Flushes; the sink stays open (it belongs to its creator). A gzip writer that wrote nothing writes one
    /// empty member, as `gzip` does for an empty input: a file of no bytes is not gzip to `gzip -t` or `zcat`.
    public func close() throws(OTLPWriteError) {
        try flush()
        if let deflater, bytesWritten == 0 {
            compressed.removeAll(keepingCapacity: true)
            try deflater.compressMember(UnsafeRawBufferPointer(start: nil, count: 0), into: &compressed)
            try put(compressed)
        }
    }

    private func emit(_ message: UnsafeRawBufferPointer) throws(OTLPWriteError) {
        if let zstdCompressor { return try emitFrame(of: message, zstdCompressor) }
        let prefix = try Self.lengthPrefix(messageBytes: message.count, framing: framing)
        record.removeAll(keepingCapacity: true)
        record.append(contentsOf: prefix)
        record.append(contentsOf: message)
        try finishRecord()
    }

    private func emitJSON(_ line: [UInt8]) throws(OTLPWriteError) {
        // A newline inside would make two lines: a reader would see two broken records.
        if let index = line.firstIndex(of: 0x0A) {
            throw .unframeable("a JSON record contains a newline at byte \(index); JSON lines must be single-line")
        }
        if let zstdCompressor {
            return try line.withUnsafeBytes { bytes in
                Result { () throws(OTLPWriteError) in try emitFrame(of: bytes, zstdCompressor) }
            }.get()
        }
        record.removeAll(keepingCapacity: true)
        record.append(contentsOf: line)
        record.append(0x0A)
        try finishRecord()
    }

    /// One record of `message` as a zstd frame, behind the frame's `u32be` length.
    private func emitFrame(of message: UnsafeRawBufferPointer, _ compressor: ZstdCompressor) throws(OTLPWriteError) {
        frame.removeAll(keepingCapacity: true)
        try compressor.compressFrame(message, into: &frame)
        let prefix = try Self.lengthPrefix(messageBytes: frame.count, framing: .u32be)
        record.removeAll(keepingCapacity: true)
        record.append(contentsOf: prefix)
        record.append(contentsOf: frame)
        try finishRecord()
    }

    private func finishRecord() throws(OTLPWriteError) {
        if let deflater {
            compressed.removeAll(keepingCapacity: true)
            try record.withUnsafeBytes { bytes in
                Result { () throws(OTLPWriteError) in try deflater.compress(bytes, into: &compressed) }
            }.get()
            if !compressed.isEmpty { try put(compressed) }
        } else {
            try put(record)
        }
        recordsWritten += 1
    }

    private func put(_ bytes: [UInt8]) throws(OTLPWriteError) {
        guard !bytes.isEmpty else { return }
        try bytes.withUnsafeBytes { raw in Result { () throws(OTLPWriteError) in try sink.write(raw) } }.get()
        bytesWritten += bytes.count
    }
}
