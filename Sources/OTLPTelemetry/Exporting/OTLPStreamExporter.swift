import Foundation
public import OTLPWire

/// Writes batches as framed OTLP records (one record per batch) to a file, standard output or any sink.
///
/// A batch is encoded and framed in memory first and handed to the sink in a single write; if that write
/// fails (disk full, read-only file system, closed pipe), the file sink rolls the file back to its length
/// before the write, the batch is counted as dropped (`write_failed`), the error is reported to
/// `diagnostics`, and the next batch is tried afresh. An exporter made with a path opens the file when it
/// first writes and, after a failure, closes it and opens it again for the next batch: it recovers by
/// itself when the fault clears (space freed, file system writable again). With gzip, every batch is one
/// complete gzip member.
///
/// Every record is proven readable by readers with their default limits (`OTLPDecoder(options: .default)`:
/// record size, decoded memory, nesting, attributes per item; for JSON lines also `OTLPReaderOptions`'
/// default line length): from what the encoder counted while building it, or, when that does not prove it,
/// by the check readers make. A batch that would fail is split in halves, down
/// to single items, so everything readable is exported; an item that fails on its own is dropped, counted
/// (`item_too_large`) and reported to `diagnostics`. With gzip, a batch that compresses more than a quarter
/// of the readers' default inflation ratio limit (`OTLPReaderOptions.default.maxInflationRatio`, 200:1) is
/// written as a stored (level 0) member instead, so that a file of such data never looks like a gzip bomb
/// to a reader.
public final class OTLPStreamExporter<Item: OTLPExportable>: OTLPRenderingExporter, @unchecked Sendable {
    private let lock = NSLock()
    private var sink: (any OTLPByteSink)?
    /// Opens the sink again after a failure (exporters made with a path).
    private let reopen: (@Sendable () throws(OTLPWriteError) -> any OTLPByteSink)?
    /// The file this exporter opens itself (``init(path:framing:gzip:zstd:gzipLevel:durability:resource:counters:diagnostics:)``),
    /// and the advisory lock it holds on it from the first open until shutdown, so that two exporters never
    /// append to one file and roll back each other's records.
    private let ownedPath: String?
    private var outputLock: OTLPOutputLock?
    /// Renderers not in use: the worker and each caller helping it (``render(_:)``) take one, so that batches
    /// are encoded and compressed on several threads at once and written in turn.
    private let renderersLock = NSLock()
    private var idleRenderers: [Renderer] = []
    private let framing: OTLPFraming
    private let gzip: Bool
    private let zstd: Bool
    /// The compression level (zlib's scale) of gzip members (1...9).
    private let gzipLevel: Int
    /// How hard each batch is made to survive a crash.
    package let durability: OTLPDurability
    /// The resource every record is written under.
    package let resource: OTLPResource
    /// Where exported and dropped items are counted.
    package let counters: OTLPTelemetryCounters
    private let diagnostics: @Sendable (String) -> Void
    private var isShutDown = false
    /// The failed writes since the last good one, reported as a run rather than once per batch.
    private var failureRun = OTLPWriteFailureRun()
    /// The check readers make with their default limits (its options are what the encoder's proof is held to).
    private let readerCheck = OTLPDecoder(options: .default)
    /// Longest JSON line readers accept by default.
    private let readerMaxLineBytes = OTLPReaderOptions.default.maxLineBytes
    /// Most uncompressed bytes per gzip byte the exporter writes: a quarter of the readers' default limit.
    private let maxMemberRatio = max(1, OTLPReaderOptions.default.maxInflationRatio / 4)

    /// What one thread needs to render a batch: an encoder, a staging buffer and a record writer into it.
    private final class Renderer {
        let staging = OTLPMemorySink()
        var writer: OTLPRecordWriter
        let encoder = OTLPEncoder()
        let jsonEncoder = OTLPJSONEncoder()
        /// Uncompressed bytes (prefixes and messages, or lines) staged for the current batch.
        var stagedRecordBytes = 0

        init(framing: OTLPFraming, gzip: Bool, zstd: Bool, gzipLevel: Int) {
            writer = OTLPRecordWriter(sink: staging, framing: framing, gzip: gzip, zstd: zstd, compressionLevel: Int32(gzipLevel))
        }
    }

    /// - Parameters:
    ///   - sink: where the records go.
    ///   - framing: default `OTLPFraming.u32be`.
    ///   - gzip: one gzip member per batch. Default `false`.
    ///   - zstd: each record one zstd frame behind a `u32be` length (the Collector's zstd layout). Default `false`.
    ///   - gzipLevel: the compression level (zlib's scale) of the gzip members, 1...9 (clamped); default 1, as
    ///     `OTLPTelemetryConfiguration.Output`'s.
    ///   - durability: default ``OTLPDurability/flush``.
    ///   - resource: the resource every record is written under.
    ///   - counters: where exported and dropped items are counted (default: counters of its own).
    ///   - diagnostics: where write errors are reported (default: standard error).
    public convenience init(
        sink: any OTLPByteSink, framing: OTLPFraming = .u32be, gzip: Bool = false, zstd: Bool = false,
        gzipLevel: Int = OTLPTelemetryConfiguration.Output.default.gzipLevel, durability: OTLPDurability = .flush,
        resource: OTLPResource, counters: OTLPTelemetryCounters = OTLPTelemetryCounters(),
        diagnostics: @escaping @Sendable (String) -> Void = OTLPDiagnostics.standardError
    ) {
        self.init(
            sink: sink, reopen: nil, ownedPath: nil, framing: framing, gzip: gzip, zstd: zstd, gzipLevel: gzipLevel,
            durability: durability,
            resource: resource,
            counters: counters, diagnostics: diagnostics)
    }

    private init(
        sink: (any OTLPByteSink)?, reopen: (@Sendable () throws(OTLPWriteError) -> any OTLPByteSink)?, ownedPath: String?,
        framing: OTLPFraming,
        gzip: Bool, zstd: Bool, gzipLevel: Int, durability: OTLPDurability, resource: OTLPResource, counters: OTLPTelemetryCounters,
        diagnostics: @escaping @Sendable (String) -> Void
    ) {
        self.gzipLevel = OTLPSettingClamp.clamp(gzipLevel, to: OTLPGzip.levelRange)
        self.sink = sink
        self.reopen = reopen
        self.ownedPath = ownedPath
        self.framing = framing
        self.gzip = gzip
        self.zstd = zstd
        self.durability = durability
        self.resource = resource
        self.counters = counters
        self.diagnostics = diagnostics
    }

    /// Appends to the file at `path`, created if missing. The file is opened when the first batch is
    /// written, and opened again after a failed write; errors are reported per batch, never thrown here.
    /// From the first open until ``shutdown()`` the exporter holds an advisory lock on the path (as the
    /// pipeline's file outputs do, `DIR/.NAME.lock`): a second exporter or pipeline on the same path gets a
    /// write error naming the holder, and its items are counted as `write_failed`. The parameters after `path`
    /// are ``init(sink:framing:gzip:zstd:gzipLevel:durability:resource:counters:diagnostics:)``'s.
    public convenience init(
        path: String, framing: OTLPFraming = .u32be, gzip: Bool = false, zstd: Bool = false,
        gzipLevel: Int = OTLPTelemetryConfiguration.Output.default.gzipLevel, durability: OTLPDurability = .flush,
        resource: OTLPResource, counters: OTLPTelemetryCounters = OTLPTelemetryCounters(),
        diagnostics: @escaping @Sendable (String) -> Void = OTLPDiagnostics.standardError
    ) {
        self.init(
            sink: nil,
            reopen: { () throws(OTLPWriteError) in
                // The file's folder is made when missing, as the pipeline's file outputs make it.
                try OTLPSystemCall.makeParentDirectories(of: path)
                return try OTLPFileSink(path: path, append: true)
            }, ownedPath: path,
            framing: framing,
            gzip: gzip, zstd: zstd, gzipLevel: gzipLevel, durability: durability, resource: resource, counters: counters,
            diagnostics: diagnostics)
    }

    @discardableResult
    public func export(_ items: [Item]) -> Bool {
        guard !items.isEmpty else { return true }
        return write(render(items))
    }

    /// `items` encoded, checked, framed (and gzip-compressed) into the bytes ``write(_:)`` hands the sink,
    /// without the exporter's lock: any thread may render while another writes. Items readers would refuse
    /// are left out here and counted (`item_too_large`).
    package func render(_ items: [Item]) -> OTLPRenderedBatch {
        let renderer =
            renderersLock.withLock { idleRenderers.popLast() } ?? Renderer(framing: framing, gzip: gzip, zstd: zstd, gzipLevel: gzipLevel)
        defer { renderersLock.withLock { idleRenderers.append(renderer) } }
        // Values nested past what any reader accepts (each array or key-value list is at least two message
        // levels; readers allow at most 128) are refused (and counted) before the encoder recurses into them.
        let encodable = Item.droppingTooDeeplyNested(items, counters: counters, reporter: "OTLPWire exporter", diagnostics: diagnostics)
        // Items left out: too deeply nested, then (counted when the batch is done) too large for readers.
        var tooLarge = items.count - encodable.count
        let tooDeeplyNested = tooLarge
        defer { counters.dropped(tooLarge - tooDeeplyNested, Item.signal, .itemTooLarge) }
        renderer.staging.removeAll()
        renderer.stagedRecordBytes = 0
        do {
            var parts: [ArraySlice<Item>] = []
            if !encodable.isEmpty { try stage(encodable[...], renderer, tooLarge: &tooLarge, parts: &parts) }
            if gzip || zstd, tooLarge < items.count {
                try renderer.writer.flush()
                if renderer.stagedRecordBytes / max(renderer.staging.bytes.count, 1) > maxMemberRatio { try restageStored(parts, renderer) }
            }
            return OTLPRenderedBatch(
                bytes: renderer.staging.bytes, itemCount: items.count - tooLarge, leftOutCount: tooLarge,
                journaledSpans: parts.flatMap { OTLPSpanJournal.journaledSpans($0) })
        } catch {
            // The next batch starts from a clean writer (a gzip member cut short must not continue).
            renderer.writer = OTLPRecordWriter(
                sink: renderer.staging, framing: framing, gzip: gzip, zstd: zstd, compressionLevel: Int32(gzipLevel))
            return OTLPRenderedBatch(bytes: [], itemCount: items.count - tooLarge, leftOutCount: tooLarge, failure: error)
        }
    }

    /// Hands a rendered batch to the sink in one write (under the exporter's lock) and counts its items:
    /// exported, or dropped (`write_failed`, `shut_down`).
    @discardableResult
    package func write(_ batch: OTLPRenderedBatch) -> Bool {
        lock.withLock { writeLocked(batch) }
    }

    /// ``write(_:)``, holding the lock.
    @discardableResult
    private func writeLocked(_ batch: OTLPRenderedBatch) -> Bool {
        guard batch.itemCount > 0 else {
            guard let failure = batch.failure else { return batch.leftOutCount == 0 }
            diagnostics("OTLPWire exporter: batch not written: \(failure)")
            return false
        }
        guard !isShutDown else {
            counters.dropped(batch.itemCount, Item.signal, .shutDown)
            return false
        }
        do {
            if let failure = batch.failure { throw failure }
            let sink: any OTLPByteSink
            if let current = self.sink {
                sink = current
            } else if let reopen {
                if let ownedPath, outputLock == nil { outputLock = try OTLPOutputLock(outputPath: ownedPath) }
                sink = try reopen()
                self.sink = sink
            } else {
                throw OTLPWriteError.io("no sink")
            }
            let journaled = batch.journaledSpans
            try batch.bytes.withUnsafeBytes { bytes in
                Result { () throws(OTLPWriteError) in
                    if let counting = sink as? any OTLPItemCountingSink {
                        if journaled.isEmpty {
                            try counting.write(bytes, itemCount: batch.itemCount)
                        } else {
                            // The journal's write-ahead intent: where these spans go, before they go there.
                            try counting.write(bytes, itemCount: batch.itemCount) { OTLPSpanJournal.markExporting(journaled, to: $0) }
                        }
                    } else {
                        try sink.write(bytes)
                    }
                }
            }.get()
            if durability == .fsync { try sink.sync() }
            // A file (an item-counting sink, which says where each write went) is a durable destination;
            // standard output is not.
            if !journaled.isEmpty { OTLPSpanJournal.acknowledgeExported(journaled, durable: sink is any OTLPItemCountingSink) }
            counters.exported(batch.itemCount, Item.signal, bytes: batch.bytes.count)
            if let report = failureRun.succeeded(noun: Self.noun) { diagnostics("OTLPWire exporter: \(report)") }
            return batch.leftOutCount == 0
        } catch {
            counters.writeFailed(bytes: 0)
            counters.dropped(batch.itemCount, Item.signal, .writeFailed)
            if let report = failureRun.failed(batch.itemCount, noun: Self.noun, cause: "\(error)") {
                diagnostics("OTLPWire exporter: \(report)")
            }
            // The next batch goes to a freshly opened file when the exporter owns one.
            if reopen != nil { sink = nil }
            return false
        }
    }

    /// Values nested deeper than this are refused before encoding (``OTLPExportable``'s limit).
    static var maxEncodableValueNesting: Int { Item.maxEncodableValueNesting }

    /// Writes `part` to the renderer's staging writer as one record if readers would accept it (adding it to
    /// `parts`), else its halves (recursively); a single item readers would refuse is left out and counted in
    /// `tooLarge`.
    private func stage(
        _ part: ArraySlice<Item>, _ renderer: Renderer, tooLarge: inout Int, parts: inout [ArraySlice<Item>]
    ) throws(OTLPWriteError) {
        guard let refusal = try writeIfReadable(Item.request(Array(part), resource: resource), renderer) else {
            parts.append(part)
            return
        }
        if part.count == 1 {
            tooLarge += 1
            diagnostics(
                "OTLPWire exporter: 1 \(Self.noun(1)) dropped (\(OTLPDropReason.itemTooLarge)): readers would refuse its record: \(refusal)"
            )
            return
        }
        let middle = part.startIndex + part.count / 2
        try stage(part[..<middle], renderer, tooLarge: &tooLarge, parts: &parts)
        try stage(part[middle...], renderer, tooLarge: &tooLarge, parts: &parts)
    }

    /// Replaces the staged gzip member or zstd frames by stored (uncompressed) ones holding the same records.
    private func restageStored(_ parts: [ArraySlice<Item>], _ renderer: Renderer) throws(OTLPWriteError) {
        renderer.staging.removeAll()
        let stored = OTLPRecordWriter(sink: renderer.staging, framing: framing, gzip: gzip, zstd: zstd, compressionLevel: 0)
        for part in parts { try stored.write(Item.request(Array(part), resource: resource)) }
        try stored.flush()
    }

    /// Writes `request` as one record when readers with their default limits would read it back; otherwise
    /// writes nothing and returns why they would not.
    private func writeIfReadable(
        _ request: OTLPSignalData<Item.RequestItem>, _ renderer: Renderer
    ) throws(OTLPWriteError) -> OTLPReadError? {
        try renderer.encoder.withEncoded(request) { message, proof in
            Result { () throws(OTLPWriteError) -> OTLPReadError? in
                // What the encoder counted while building proves most batches readable; the others are
                // checked as readers check them.
                if !proof.provesReadable(under: readerCheck.options) {
                    do throws(OTLPReadError) {
                        try readerCheck.check(message, as: Item.RequestItem.signal)
                    } catch {
                        return error
                    }
                }
                guard framing == .jsonl else {
                    try renderer.writer.writeEncoded(message)
                    renderer.stagedRecordBytes += message.count + (framing == .u32be ? 4 : 10)
                    return nil
                }
                let line = renderer.jsonEncoder.encode(request)
                guard line.count <= readerMaxLineBytes else {
                    return OTLPReadError(.lineTooLong, "JSON line of \(line.count) bytes, over the limit of \(readerMaxLineBytes)")
                }
                try line.withUnsafeBytes { bytes in Result { () throws(OTLPWriteError) in try renderer.writer.writeEncoded(bytes) } }.get()
                renderer.stagedRecordBytes += line.count + 1
                return nil
            }
        }.get()
    }

    private static func noun(_ count: Int) -> String { Item.signal.noun(count) }

    /// Sends later batches to `sink` instead (for example after the old one failed for good).
    package func redirect(to sink: any OTLPByteSink) {
        lock.withLock { self.sink = sink }
    }

    public func forceFlush() {
        lock.withLock {
            if durability == .fsync { try? sink?.sync() }
        }
    }

    public func shutdown() {
        forceFlush()
        lock.withLock {
            isShutDown = true
            if ownedPath != nil {
                sink = nil  // closes the file before the lock goes
                outputLock = nil
            }
        }
    }
}

extension OTLPStreamExporter: OTLPSpanJournalAcknowledging {}

extension OTLPStreamExporter: OTLPSpanJournalDestination {
    /// A file (an item-counting sink) is the file destination; standard output is none.
    package var journalDestinationKind: OTLPExportDestination.Kind? {
        lock.withLock { sink is any OTLPItemCountingSink || reopen != nil ? .file : nil }
    }
}
