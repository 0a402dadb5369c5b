import Foundation
package import OTLPWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The open-span journal: a file in the app's state directory holding, for every journaled span (the
/// instrumentations' and those of tracers that opt in), the span as it started and again as it ended, until
/// the exporter has taken it. After a crash, the next process with the same directory exports from it, first,
/// every span that was started and never exported (``open(directory:)``).
///
/// - A write is one u32be-framed record (``OTLPSpanJournalRecord``) ending in its CRC-32 (a protobuf field
///   readers skip: the file stays an ordinary u32be OTLP traces file), written into a shared memory mapping of
///   the file, which is preallocated to ``Settings/maxFileBytes`` (zeros after the last record end it): no
///   system call per span. A span's record is written there in place, field by field from the span (no copy
///   in between). A killed process loses nothing written there (the kernel's page cache holds it),
///   so `none` and `flush` durability leave the rest to the kernel; `fsync` adds `msync`, so a record
///   survives a power loss. The record's bytes are written before its length, so a kill in between leaves the
///   records' end where it was. Where the file cannot be preallocated (a full disk) or mapped, each record is
///   one `pwrite(2)` instead.
/// - The heartbeat, the last moment the process was known alive, is the latest time any record holds; while
///   spans are open, an `alive` record is added every ``Settings/heartbeatIntervalSeconds`` in which nothing
///   else was written.
/// - Bounded: when the file would pass ``Settings/maxFileBytes`` it is rewritten (atomically) with the records
///   of the spans not yet exported; when those alone take half the bound, new spans are not journaled
///   (``refusedSpans``). Spans whose heartbeat is older than ``Settings/maxAgeSeconds`` are not recovered.
/// - One process per directory: the journal holds ``OTLPOutputLock`` on its file while open.
/// - Spans of tracers that do not journal never reach this type: their only cost is a `nil` check.
package final class OTLPSpanJournal: @unchecked Sendable {
    /// The journal's bounds.
    package struct Settings: Sendable {
        /// The file is compacted when it would grow past this. Default 1 MiB.
        package var maxFileBytes = 1 << 20
        /// A record larger than this is not written (the span is not journaled), nor read back. Default 256 KiB.
        package var maxRecordBytes = 256 << 10
        /// Spans whose heartbeat is older are not recovered. Default 7 days.
        package var maxAgeSeconds: Double = 7 * 86_400
        /// How often the heartbeat is refreshed while spans are open. Default 2 s.
        package var heartbeatIntervalSeconds: Double = 2
        /// Most bytes read back at recovery: 4 × ``maxFileBytes``.
        var maxRecoveryBytes: Int { maxFileBytes * 4 }

        package static let `default` = Settings()
        package init() {}
    }

    /// A span's identity in the journal.
    struct Key: Hashable {
        var traceID: OTLPTraceID
        var spanID: OTLPSpanID
    }

    /// A span held until it is exported: where its latest record is in the file (framed, as written).
    struct Entry {
        var offset: Int
        var length: Int
        var isOpen: Bool
        /// The durable destinations that took the span so far (a pipeline with a file output and a spool has two).
        var acknowledgements = 0
        /// Where its exporters said they were writing it (the write-ahead intents), kept so that a compaction
        /// writes them again: a next start looks there for a span whose acknowledgement did not come.
        var intents: [OTLPExportDestination] = []
    }

    /// The journal's file name in the state directory.
    package static let fileName = "open-spans.u32be.bin"
    /// The status message of a recovered span that never ended.
    package static let interruptedMessage = "the process ended before the span ended"

    package let settings: Settings
    private let resource: OTLPResource
    private let durability: OTLPDurability
    private let clock: any OTLPClock
    private let diagnostics: @Sendable (String) -> Void
    private let lock = NSLock()
    private let encoder = OTLPEncoder()
    private var descriptor: Int32 = -1
    /// The file mapped (shared) for writing, ``mappedBytes`` long; `nil` when records are written with `pwrite`.
    private var mapping: UnsafeMutableRawPointer?
    private var mappedBytes = 0
    private var outputLock: OTLPOutputLock?
    /// The journal file, once open.
    package private(set) var path: String?
    private var live: [Key: Entry] = [:]
    /// The bytes of the records ``live`` holds (kept as it changes: summing them for every span cost time in
    /// proportion to the spans held).
    private var liveBytes = 0
    private var openCount = 0
    /// The pipeline's durable destinations of spans (its traces file output, its spool), set by ``open(directory:outputPath:destinationCheckers:durableDestinations:)``:
    /// a span is forgotten once each of them took it. With none (a collector without a spool, standard output),
    /// the first exporter that takes it is enough.
    private var durableDestinations = 0
    private var fileBytes = 0
    private var wroteSinceHeartbeat = false
    private var heartbeatScheduled = false
    private var reportedFailure = false
    private var _refusedSpans = 0
    /// New spans not journaled because their first record could not be written (reported with the error).
    private var _unwrittenSpans = 0
    private var _writeErrors = 0
    /// The tag every span journaled here carries to the export stage.
    package private(set) var tag: OTLPSpanJournalTag!

    package init(
        resource: OTLPResource, durability: OTLPDurability, clock: any OTLPClock, settings: Settings = .default,
        diagnostics: @escaping @Sendable (String) -> Void = OTLPDiagnostics.standardError
    ) {
        self.resource = resource
        self.durability = durability
        self.clock = clock
        self.settings = settings
        self.diagnostics = diagnostics
        tag = OTLPSpanJournalTag(journal: self, resource: nil)
    }

    deinit {
        unmap()
        if descriptor >= 0 { closeDescriptor(descriptor) }
    }

    /// Whether the journal is open (spans are journaled).
    package var isOpen: Bool { lock.withLock { descriptor >= 0 } }
    /// Spans not journaled because the journal was full (or a record too large).
    package var refusedSpans: Int { lock.withLock { _refusedSpans + _unwrittenSpans } }
    /// Writes that failed (each reported once to the diagnostics hook, the first time).
    package var writeErrors: Int { lock.withLock { _writeErrors } }
    /// Spans held: started or ended and not yet exported.
    package var heldSpans: Int { lock.withLock { live.count } }
    /// The journal file's size as written.
    package var fileSizeBytes: Int { lock.withLock { fileBytes } }

    // MARK: - Writing

    /// Journals `span` as it started (its end time 0). Returns whether it is journaled: `false` when the
    /// journal is closed or full. The span is taken, not copied.
    package func started(_ span: consuming OTLPScopedSpan, interruptedAttribute: String?) -> Bool {
        write(&span, kind: .started, interruptedAttribute: interruptedAttribute, isNew: true)
    }

    /// Journals `span` again, as it started, with what it holds now (its attributes set after it started).
    package func checkpoint(_ span: consuming OTLPScopedSpan, interruptedAttribute: String?) {
        _ = write(&span, kind: .started, interruptedAttribute: interruptedAttribute, isNew: false)
    }

    /// Journals `span` as it ended. Its attributes are written as they are converted for export, without
    /// converting them on the caller's thread; only when the conversion would change them (a value to cut or
    /// to describe, an array, events or links whose limits apply) is `span` converted here
    /// (``OTLPScopedSpan/prepareForExport()``), once, for the journal and the pipeline: both get the same values.
    package func ended(_ span: inout OTLPScopedSpan, interruptedAttribute: String?) {
        _ = write(&span, kind: .ended, interruptedAttribute: interruptedAttribute, isNew: false)
    }

    /// The exporter took these spans: they are forgotten, with one `exported` record for the whole batch,
    /// encoded before the journal's lock is taken, so that the moment between the exporter's write and this
    /// one is as short as it can be (a kill inside it exports those spans again at the next start).
    ///
    /// `durable`: the exporter is one of the pipeline's durable destinations (its file output, its spool).
    /// When the pipeline has several, a span is forgotten once each took it (regression: the first one's
    /// acknowledgement forgot it, and a kill before the second's write lost it there); when it has durable
    /// destinations, another exporter's acknowledgement (a collector without a spool) forgets nothing.
    package func exported(_ spans: [OTLPScopedSpan], durable: Bool = true) {
        acknowledge(spans, kind: .exported, durable: durable)
    }

    /// These spans are about to be written to `destination` by their exporter: one `exporting` record for the
    /// batch (the write-ahead intent), written before the exporter's write, so that a next start can look there
    /// for spans the exporter took without the journal hearing of it.
    package func exporting(_ spans: [OTLPScopedSpan], to destination: OTLPExportDestination?) {
        acknowledge(spans, kind: .exporting, destination: destination)
    }

    /// Tests only: called with `"exported"` before an `exported` record is written (a test's child process
    /// kills itself there, between the exporter's write and the acknowledgement).
    package nonisolated(unsafe) static var faultPoint: ((String) -> Void)?

    private func acknowledge(
        _ spans: [OTLPScopedSpan], kind: OTLPSpanJournalRecord.Kind, destination: OTLPExportDestination? = nil, durable: Bool = true
    ) {
        var keys = spans.compactMap(\.journalKey)
        guard !keys.isEmpty else { return }
        if kind == .exported, durableDestinations > 1 || (durableDestinations == 1 && !durable) {
            // Several destinations must each take a span, or this exporter is not the one that counts: only the
            // spans it completes are acknowledged, in a record of their own.
            guard durable else { return }
            lock.lock()
            var completed: [Key] = []
            for key in keys {
                guard var entry = live[key] else { continue }
                entry.acknowledgements += 1
                if entry.acknowledgements >= durableDestinations {
                    completed.append(key)
                } else {
                    _ = setLive(key, entry)
                }
            }
            lock.unlock()
            guard !completed.isEmpty else { return }
            keys = completed
        }
        if kind == .exported, let faultPoint = Self.faultPoint { faultPoint("exported") }
        let record = OTLPSpanJournalRecord(
            kind: kind, writtenUnixNano: clock.nowUnixNano(),
            exportedSpans: keys.map {
                OTLPSpan(traceID: $0.traceID, spanID: $0.spanID, name: "", startTimeUnixNano: 0, endTimeUnixNano: 0)
            },
            destination: destination)
        let bytes = OTLPSpanJournalRecord.framed(
            kind: record.kind, writtenUnixNano: record.writtenUnixNano, resource: record.resourceWithDestination, scope: nil, span: nil,
            interruptedAttribute: nil, exportedSpans: record.exportedSpans, maxRecordBytes: Int(UInt32.max), sealed: true)
        lock.lock()
        defer { lock.unlock() }
        var held = false
        for key in keys {
            if kind == .exporting {
                guard var entry = live[key] else { continue }
                held = true
                if let destination {
                    entry.intents.append(destination)
                    _ = setLive(key, entry)
                }
                continue
            }
            guard let entry = removeLive(key) else { continue }
            held = true
            if entry.isOpen { openCount -= 1 }
        }
        guard held, descriptor >= 0, let bytes else { return }
        _ = append(bytes)
        if kind == .exported, live.isEmpty, fileBytes > settings.maxFileBytes / 4 { compact() }
    }

    /// Writes an `alive` record if spans are open and nothing was written since the last heartbeat.
    package func heartbeat() {
        lock.lock()
        defer { lock.unlock() }
        guard descriptor >= 0, openCount > 0 else { return }
        if !wroteSinceHeartbeat, let bytes = framed(OTLPSpanJournalRecord(kind: .alive, writtenUnixNano: clock.nowUnixNano())) {
            _ = append(bytes)
        }
        wroteSinceHeartbeat = false
    }

    private func write(_ item: inout OTLPScopedSpan, kind: OTLPSpanJournalRecord.Kind, interruptedAttribute: String?, isNew: Bool) -> Bool {
        guard let key = item.journalKey else { return false }
        let writtenUnixNano = clock.nowUnixNano()
        lock.lock()
        defer { lock.unlock() }
        guard descriptor >= 0 else { return false }
        if isNew {
            guard live.count < 100_000, liveBytes < settings.maxFileBytes / 2 else {
                _refusedSpans += 1
                return false
            }
        } else if live[key] == nil {
            return false  // not journaled (refused at start), or already exported
        }
        let written = appendRecord(of: &item, kind: kind, writtenUnixNano: writtenUnixNano, interruptedAttribute: interruptedAttribute)
        guard case .appended(let offset, let length) = written else {
            if isNew {
                if case .tooLarge = written { _refusedSpans += 1 } else { _unwrittenSpans += 1 }
            } else if case .failed = written, kind != .started, var entry = live[key], entry.isOpen {
                // The span ended; only its record could not be written: it is not "open at shutdown".
                entry.isOpen = false
                _ = setLive(key, entry)
                openCount -= 1
            }
            return false
        }
        let isOpen = kind == .started
        let old = live[key]
        let entry = Entry(
            offset: offset, length: length, isOpen: isOpen, acknowledgements: old?.acknowledgements ?? 0, intents: old?.intents ?? [])
        let wasOpen = setLive(key, entry)?.isOpen ?? false
        openCount += (isOpen ? 1 : 0) - (wasOpen ? 1 : 0)
        if openCount > 0 && !heartbeatScheduled { scheduleHeartbeat() }
        return true
    }

    /// What ``appendRecord(of:kind:writtenUnixNano:interruptedAttribute:)`` did.
    private enum Appended {
        case appended(offset: Int, length: Int)
        /// The record is larger than ``Settings/maxRecordBytes``.
        case tooLarge
        /// Writing failed (reported).
        case failed
    }

    /// Appends the record of `item`: written in place, field by field straight from the span, into the mapped
    /// file past the last record (its length prefix last, as ``append(_:)`` copies), with the file compacted
    /// first when the record would pass ``Settings/maxFileBytes``; where it cannot be (no mapping, or no room
    /// after the compaction) encoded into an array and appended. `item` is converted
    /// (``OTLPScopedSpan/prepareForExport()``) when its pending attributes cannot be written as they are.
    /// Under ``lock``.
    private func appendRecord(
        of item: inout OTLPScopedSpan, kind: OTLPSpanJournalRecord.Kind, writtenUnixNano: UInt64, interruptedAttribute: String?
    ) -> Appended {
        let trailer = Self.checksumTrailerBytes
        let bound = OTLPLengthPrefix.u32Bytes + settings.maxRecordBytes + trailer + OTLPSpanJournalRecord.transientBytes
        var compacted = false
        while let mapping, fileBytes < mappedBytes {
            let room = min(mappedBytes, settings.maxFileBytes) - fileBytes
            let capacity = min(room, bound)
            var writer = OTLPProtobufWriter(base: (mapping + fileBytes).assumingMemoryBound(to: UInt8.self), capacity: capacity)
            let outcome = OTLPSpanJournalRecord.write(
                kind: kind, writtenUnixNano: writtenUnixNano, resource: OTLPResource(), scope: item.scope,
                span: item.storedSpanForJournal, pending: item.pendingSpanAttributes, interruptedAttribute: interruptedAttribute,
                exportedSpans: [], maxRecordBytes: settings.maxRecordBytes, sealed: true, into: &writer)
            if outcome == .written {
                let length = writer.count
                sync(from: fileBytes, length: length)
                defer { fileBytes += length }
                wroteSinceHeartbeat = true
                return .appended(offset: fileBytes, length: length)
            }
            // Nothing of it stays: the bytes after the last record are zeros again.
            (mapping + fileBytes).initializeMemory(as: UInt8.self, repeating: 0, count: writer.furthest)
            if outcome == .tooLarge { return .tooLarge }
            if outcome == .needsConversion {
                item.prepareForExport()
                continue
            }
            // No room left before the bound of the file.
            if capacity >= bound { return .tooLarge }
            if compacted { break }
            compact()
            compacted = true
        }
        // Without a mapping, or past it: the record encoded into an array, then written.
        item.prepareForExport()
        guard
            let bytes = OTLPSpanJournalRecord.framed(
                kind: kind, writtenUnixNano: writtenUnixNano, scope: item.scope, span: item.storedSpanForJournal,
                interruptedAttribute: interruptedAttribute, maxRecordBytes: settings.maxRecordBytes, sealed: true)
        else { return .tooLarge }
        if !compacted, fileBytes + bytes.count > settings.maxFileBytes { compact() }
        let offset = fileBytes
        return append(bytes) ? .appended(offset: offset, length: bytes.count) : .failed
    }

    /// The `alive` record that opens every journal file: it carries this process's resource, which the records
    /// of its spans leave out (written once, not with every span). Recovered spans' records carry their own.
    private func resourceRecord() -> [UInt8] {
        framed(OTLPSpanJournalRecord(kind: .alive, writtenUnixNano: clock.nowUnixNano(), resource: resource)) ?? []
    }

    /// Holds `entry` for `key` (under ``lock``); returns the entry it replaces.
    @discardableResult
    private func setLive(_ key: Key, _ entry: Entry) -> Entry? {
        let old = live.updateValue(entry, forKey: key)
        liveBytes += entry.length - (old?.length ?? 0)
        return old
    }

    /// Forgets `key`'s entry (under ``lock``) and returns it.
    private func removeLive(_ key: Key) -> Entry? {
        let old = live.removeValue(forKey: key)
        liveBytes -= old?.length ?? 0
        return old
    }

    /// The record encoded and framed, or `nil` (counted) when it is larger than a record may be.
    private func framed(_ record: OTLPSpanJournalRecord) -> [UInt8]? {
        Self.framed(record, encoder: encoder, maxRecordBytes: settings.maxRecordBytes)
    }

    private static func framed(_ record: OTLPSpanJournalRecord, encoder: OTLPEncoder, maxRecordBytes: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        encoder.withEncoded(record.request) { encoded in
            guard encoded.count <= maxRecordBytes else { return }
            bytes.reserveCapacity(encoded.count + OTLPLengthPrefix.u32Bytes + checksumTrailerBytes)
            _ = OTLPLengthPrefix.encode(encoded.count, framing: .u32be, into: &bytes)
            bytes.append(contentsOf: encoded)
        }
        return bytes.isEmpty ? nil : sealed(bytes)
    }

    /// The bytes of the protobuf field that ends every record of format version 2: field 2047, `fixed32`
    /// (tag `0xFD 0x7F`), the CRC-32 of the record's request before it (readers skip the unknown field).
    static let checksumTrailerBytes = 6
    static let checksumTag: [UInt8] = [0xFD, 0x7F]

    /// `framed` (a u32be length and a request) with the checksum field appended and the length grown by it.
    static func sealed(_ framed: [UInt8]) -> [UInt8] {
        var bytes = framed
        let crc = bytes.withUnsafeBytes { OTLPCRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[OTLPLengthPrefix.u32Bytes...])) }
        bytes += checksumTag
        withUnsafeBytes(of: crc.littleEndian) { bytes.append(contentsOf: $0) }
        let length = bytes.count - OTLPLengthPrefix.u32Bytes
        bytes[0] = UInt8(truncatingIfNeeded: length >> 24)
        bytes[1] = UInt8(truncatingIfNeeded: length >> 16)
        bytes[2] = UInt8(truncatingIfNeeded: length >> 8)
        bytes[3] = UInt8(truncatingIfNeeded: length)
        return bytes
    }

    /// Appends `bytes` (one sealed record) at ``fileBytes``: copied into the mapping when it fits, the record
    /// before its length prefix (a kill in between leaves a zero length, the end of the records), then
    /// `msync` under `fsync` durability; otherwise `pwrite(2)` (the rest written after it, should the kernel
    /// take less), then `fdatasync` under `fsync`. A failed `pwrite` is cut off the file again, so that later
    /// records stay readable. Under ``lock``.
    private func append(_ bytes: [UInt8]) -> Bool {
        let prefix = OTLPLengthPrefix.u32Bytes
        if let mapping, bytes.count > prefix, fileBytes + bytes.count <= mappedBytes {
            bytes.withUnsafeBytes { raw in
                (mapping + fileBytes + prefix).copyMemory(from: raw.baseAddress! + prefix, byteCount: raw.count - prefix)
                (mapping + fileBytes).copyMemory(from: raw.baseAddress!, byteCount: prefix)
            }
            sync(from: fileBytes, length: bytes.count)
            fileBytes += bytes.count
            wroteSinceHeartbeat = true
            return true
        }
        do throws(OTLPWriteError) {
            var done = 0
            while done < bytes.count {
                done += try bytes.withUnsafeBytes { raw in
                    Result { () throws(OTLPWriteError) in
                        try OTLPSystemCall.check("cannot write the span journal \(path ?? "")") {
                            pwrite(descriptor, raw.baseAddress! + done, raw.count - done, off_t(fileBytes + done))
                        }
                    }
                }.get()
            }
            if durability == .fsync {
                try OTLPSystemCall.check("cannot fsync the span journal \(path ?? "")") { fsync(descriptor) }
            }
            fileBytes += bytes.count
            wroteSinceHeartbeat = true
            return true
        } catch {
            _writeErrors += 1
            if mapping == nil { _ = ftruncate(descriptor, off_t(fileBytes)) }
            report(error, "spans are journaled only when a write succeeds (counted)")
            return false
        }
    }

    /// Under `fsync` durability, `msync`s the mapped pages holding `length` bytes from `offset` (a failure is
    /// reported: the record is in the file, only not known to be on the disk). Under ``lock``.
    private func sync(from offset: Int, length: Int) {
        guard durability == .fsync, let mapping else { return }
        let page = Self.pageBytes
        let start = offset / page * page
        do throws(OTLPWriteError) {
            try OTLPSystemCall.check("cannot msync the span journal \(path ?? "")") {
                msync(mapping + start, offset + length - start, MS_SYNC)
            }
        } catch {
            report(error, "spans are journaled only when a write succeeds (counted)")
        }
    }

    /// Reports the first failure to the diagnostics hook. Under ``lock``.
    private func report(_ error: OTLPWriteError, _ consequence: String) {
        if !reportedFailure {
            reportedFailure = true
            diagnostics("OTLPWire telemetry: \(error); \(consequence)")
        }
    }

    static let pageBytes = Int(sysconf(Int32(_SC_PAGESIZE)))
    #if os(Linux)
    static let mapFlags = MAP_SHARED | MAP_POPULATE
    #else
    static let mapFlags = MAP_SHARED
    #endif

    /// Opens the journal file at `path` (holding `contentBytes` of records) for writing, and maps it,
    /// preallocated to ``Settings/maxFileBytes`` (or the records, when more), rounded up to a whole page. Without
    /// the preallocation (a full disk, a file system without it) or the mapping, records are written with
    /// `pwrite`. Under ``lock``.
    private func openForWriting(_ path: String, contentBytes: Int) throws(OTLPWriteError) {
        let (newDescriptor, _) = try OTLPSystemCall.openRegularFile(path, flags: O_RDWR, "cannot open the span journal \(path)")
        unmap()
        if descriptor >= 0 { closeDescriptor(descriptor) }
        descriptor = newDescriptor
        fileBytes = contentBytes
        let page = Self.pageBytes
        // Compaction keeps the records within maxFileBytes; past the mapping (compaction failed), `pwrite`.
        let capacity = (max(settings.maxFileBytes, contentBytes) + page - 1) / page * page
        // posix_fallocate returns the error (it does not set errno): allocated blocks, so that writing into
        // the mapping never meets a full disk (which would be SIGBUS).
        guard posix_fallocate(descriptor, 0, off_t(capacity)) == 0 else {
            _ = ftruncate(descriptor, off_t(contentBytes))
            return
        }
        guard
            let mapped = try? OTLPSystemCall.check(
                "cannot map the span journal \(path)",
                {
                    // Populated now (one pass over the preallocated pages), not by a fault at each page a record reaches.
                    let address = mmap(nil, capacity, PROT_READ | PROT_WRITE, Self.mapFlags, descriptor, 0)
                    return address == MAP_FAILED ? nil : address
                })
        else {
            _ = ftruncate(descriptor, off_t(contentBytes))
            return
        }
        mapping = mapped
        mappedBytes = capacity
    }

    /// Unmaps the file. Under ``lock``.
    private func unmap() {
        if let mapping { munmap(mapping, mappedBytes) }
        mapping = nil
        mappedBytes = 0
    }

    /// Rewrites the file with the records of the spans held (atomically), and appends from there. Under ``lock``.
    private func compact() {
        guard let path else { return }
        var content = resourceRecord()
        var moved: [(key: Key, entry: Entry)] = []
        moved.reserveCapacity(live.count)
        do throws(OTLPWriteError) {
            try withRecords { records in
                for (key, entry) in live {
                    moved.append(
                        (
                            key,
                            Entry(
                                offset: content.count, length: entry.length, isOpen: entry.isOpen, acknowledgements: entry.acknowledgements,
                                intents: entry.intents)
                        ))
                    content.append(contentsOf: UnsafeRawBufferPointer(rebasing: records[entry.offset..<entry.offset + entry.length]))
                }
            }
            // The intents of the spans kept, after their records (regression: a compaction between an intent and
            // its acknowledgement dropped it, and the next start exported the span again where it already was).
            content += Self.intentRecords(live.map { (key: $0.key, intents: $0.value.intents) }, writtenUnixNano: clock.nowUnixNano())
            // Atomic always (a kill leaves the old file or the new one); synced to the disk only under `fsync`
            // durability, as the records appended are: the two `fsync`s took milliseconds, every megabyte,
            // with the journal's lock held.
            try OTLPAtomicFile.replace(path, with: content, syncing: durability == .fsync)
            try openForWriting(path, contentBytes: content.count)
            for (key, entry) in moved { live[key] = entry }
        } catch {
            _writeErrors += 1
            report(error, "the span journal keeps growing")
        }
    }

    /// `exporting` records for `spans`' intents, one per destination (the spans a write held together).
    static func intentRecords(_ spans: [(key: Key, intents: [OTLPExportDestination])], writtenUnixNano: UInt64) -> [UInt8] {
        var byDestination: [(destination: OTLPExportDestination, keys: [Key])] = []
        for (key, intents) in spans {
            for destination in intents {
                if let index = byDestination.firstIndex(where: { $0.destination == destination }) {
                    byDestination[index].keys.append(key)
                } else {
                    byDestination.append((destination, [key]))
                }
            }
        }
        var bytes: [UInt8] = []
        for (destination, keys) in byDestination {
            let intent = OTLPSpanJournalRecord(
                kind: .exporting, writtenUnixNano: writtenUnixNano,
                exportedSpans: keys.map {
                    OTLPSpan(traceID: $0.traceID, spanID: $0.spanID, name: "", startTimeUnixNano: 0, endTimeUnixNano: 0)
                },
                destination: destination)
            if let framed = OTLPSpanJournalRecord.framed(
                kind: intent.kind, writtenUnixNano: intent.writtenUnixNano, resource: intent.resourceWithDestination, scope: nil, span: nil,
                interruptedAttribute: nil, exportedSpans: intent.exportedSpans, maxRecordBytes: Int(UInt32.max), sealed: true)
            {
                bytes += framed
            }
        }
        return bytes
    }

    /// Calls `body` with the file's records (its first ``fileBytes`` bytes): the mapping when it holds them,
    /// else the file read (throws when it is shorter than its records). Under ``lock``.
    private func withRecords(_ body: (UnsafeRawBufferPointer) -> Void) throws(OTLPWriteError) {
        if let mapping, fileBytes <= mappedBytes {
            body(UnsafeRawBufferPointer(start: mapping, count: fileBytes))
            return
        }
        var bytes = [UInt8](repeating: 0, count: fileBytes)
        var done = 0
        while done < bytes.count {
            let count = try bytes.withUnsafeMutableBytes { raw in
                Result { () throws(OTLPWriteError) in
                    try OTLPSystemCall.check("cannot read the span journal \(path ?? "")") {
                        pread(descriptor, raw.baseAddress! + done, raw.count - done, off_t(done))
                    }
                }
            }.get()
            guard count > 0 else {
                // Shorter than its records (cut by something else): the records held are not all there.
                throw .system("the span journal \(path ?? "") ends at byte \(done), before its records' end (\(fileBytes))", errno: EIO)
            }
            done += count
        }
        bytes.withUnsafeBytes { body($0) }
    }

    private func scheduleHeartbeat() {
        heartbeatScheduled = true
        let interval = settings.heartbeatIntervalSeconds
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + interval) { [weak self] in
            guard let self else { return }
            heartbeat()
            lock.withLock {
                heartbeatScheduled = false
                if openCount > 0, descriptor >= 0 { scheduleHeartbeat() }
            }
        }
    }

    // MARK: - Opening and closing

    /// Opens the journal in `directory` (created if missing), taking its lock, and reads what the previous
    /// process left there: the spans it started and never exported, ready to be exported first (unended ones
    /// ended at its heartbeat, status `ERROR`, with their interrupted attribute set to `true`), each tagged
    /// with its resource and this journal, so that it is forgotten once exported. The file is then rewritten
    /// with exactly those spans. A file that could not be read in full is set aside first (renamed to
    /// `open-spans.u32be.bin.unread`, replacing an older one). Throws when the directory or the file cannot
    /// be made, or another process holds the journal (`EWOULDBLOCK`, naming it): spans are then not journaled.
    ///
    /// Spans the previous process handed to its exporter without hearing back (killed between the two) are
    /// looked up where the exporter's write-ahead intent says it was writing: the file output's file (by
    /// device and inode, wherever it was rotated to), or the spool (`destinationCheckers`); those found there
    /// are not exported again. Intents written by older versions do not say where: those spans are looked up
    /// by ID in `outputPath`, the traces file output, when there is one.
    ///
    /// `durableDestinations`: how many of the pipeline's exporters of spans are durable destinations (the traces
    /// file output, a spool). With several, a span is forgotten once each took it, and a span in doubt is not
    /// exported again only when each has it; one found in some of them only is exported again (to all: it is
    /// then twice in those, rather than missing from the others).
    package func open(
        directory: String, outputPath: String? = nil, destinationCheckers: [any OTLPExportDestinationChecking] = [],
        durableDestinations: Int = 0
    ) throws(OTLPWriteError) -> (recovery: OTLPSpanJournalRecovery, spans: [OTLPScopedSpan]) {
        try OTLPSystemCall.makeDirectories(directory)
        let path = (directory.hasSuffix("/") ? directory : directory + "/") + Self.fileName
        lock.lock()
        defer { lock.unlock() }
        guard descriptor < 0 else { return (.empty, []) }
        let outputLock = try OTLPOutputLock(outputPath: path)
        self.durableDestinations = max(0, durableDestinations)
        var recovery = OTLPSpanJournalRecovery.empty
        var recovered: [OTLPScopedSpan] = []
        // The file starts with this process's resource, which its records of spans leave out.
        var content = resourceRecord()
        live = [:]
        liveBytes = 0
        openCount = 0
        if let (bytes, unreadBytes) = try Self.readPrevious(path, maxBytes: settings.maxRecoveryBytes) {
            var found = OTLPSpanJournalContent(bytes: bytes, maxRecordBytes: settings.maxRecordBytes)
            if unreadBytes > 0 {
                found.skippedRecords += 1
                found.skippedBytes += unreadBytes
                found.problems.append(
                    "\(unreadBytes) bytes past the first \(settings.maxRecoveryBytes) not read (the file is over its bound)")
            }
            if found.skippedRecords > 0 {
                let aside = path + ".unread"
                try OTLPSystemCall.check("cannot set aside \(path) as \(aside)") { rename(path, aside) }
                recovery.setAsidePath = aside
                recovery.skippedRecords = found.skippedRecords
                recovery.skippedBytes = found.skippedBytes
                diagnostics(
                    "OTLPWire telemetry: the span journal \(path) could not be read in full (\(found.problems.joined(separator: "; "))); \(found.skippedRecords) \(found.skippedRecords == 1 ? "record was" : "records were") skipped (\(found.skippedBytes) bytes) and the file set aside as \(aside)"
                )
            }
            let now = clock.nowUnixNano()
            // A clock set back since the previous process: its heartbeat is in the future, nothing has expired.
            let ageSeconds = now > found.heartbeatUnixNano ? Double(now - found.heartbeatUnixNano) / 1e9 : 0
            if ageSeconds > settings.maxAgeSeconds {
                recovery.expiredSpans = found.held.count
                if !found.held.isEmpty {
                    diagnostics(
                        "OTLPWire telemetry: the span journal \(path) held \(found.held.count) spans whose last heartbeat is \(Int(ageSeconds)) s old (more than \(Int(settings.maxAgeSeconds)) s): not recovered"
                    )
                }
                found.held = []
            }
            // Spans handed to an exporter without an acknowledgement: those that got where the exporter was
            // writing (the write-ahead `exporting` record says where) are not exported again.
            // With several durable destinations, each must hold the span.
            let needed = max(1, durableDestinations)
            // The destinations that hold a span kept for export (some, not all): they skip it at export.
            var heldBy: [Key: [OTLPExportDestination]] = [:]
            found.held.removeAll { held in
                var holding: [OTLPExportDestination] = []
                for destination in held.destinations {
                    guard let destination, !holding.contains(where: { $0.kind == destination.kind }) else { continue }
                    let holds =
                        switch destination.kind {
                        case .file: destination.isInFileOutput()
                        case .spool: destinationCheckers.lazy.compactMap { $0.holds(destination) }.first ?? false
                        }
                    if holds { holding.append(destination) }
                }
                if holding.count >= needed { return true }
                if !holding.isEmpty, let traceID = held.span.traceID, let spanID = held.span.spanID {
                    heldBy[Key(traceID: traceID, spanID: spanID)] = holding
                }
                return false
            }
            // Older writers did not say where: such spans are looked up by ID in the traces file output.
            let inDoubt = Set(found.held.filter { $0.destinations.contains { $0 == nil } }.compactMap { held in held.span.spanID })
            if !inDoubt.isEmpty, let outputPath {
                let written = Self.spanIDs(inOutput: outputPath, among: inDoubt)
                found.held.removeAll { $0.destinations.contains { $0 == nil } && $0.span.spanID.map(written.contains) == true }
            }
            for held in found.held {
                var span = held.span
                // Attributes are journaled in the order the span stored them (not converted on the caller's
                // thread): sorted by key here, as the pipeline exports a span's attributes, the interrupted
                // attribute last (where an earlier recovery put it).
                span.attributes.sortByKey(last: held.record.interruptedAttribute)
                if held.record.kind == .started {
                    span.endTimeUnixNano = max(span.startTimeUnixNano, found.heartbeatUnixNano)
                    span.status = OTLPSpanStatus(code: .error, message: Self.interruptedMessage)
                    if let key = held.record.interruptedAttribute {
                        span.attributes.removeAll { $0.key == key }
                        span.attributes.append(OTLPAttribute(key, .bool(true)))
                    }
                }
                let record = OTLPSpanJournalRecord(
                    kind: .ended, writtenUnixNano: now, resource: held.record.resource, scopedSpan: (held.scope, span),
                    interruptedAttribute: held.record.interruptedAttribute)
                guard let bytes = framed(record), let traceID = span.traceID, let spanID = span.spanID else { continue }
                setLive(Key(traceID: traceID, spanID: spanID), Entry(offset: content.count, length: bytes.count, isOpen: false))
                content += bytes
                let holding = heldBy[Key(traceID: traceID, spanID: spanID)] ?? []
                if !holding.isEmpty, var entry = live[Key(traceID: traceID, spanID: spanID)] {
                    entry.intents = holding
                    _ = setLive(Key(traceID: traceID, spanID: spanID), entry)
                }
                // The intents that found it where it is, kept: should this process die before every destination
                // took it, the next start still knows which ones hold it.
                content += Self.intentRecords([(Key(traceID: traceID, spanID: spanID), holding)], writtenUnixNano: now)
                var item = OTLPScopedSpan(scope: held.scope, span: span)
                item.journalTag = OTLPSpanJournalTag(journal: self, resource: held.record.resource, heldBy: Set(holding.map(\.kind)))
                recovered.append(item)
                recovery.spans.append(span)
            }
        }
        try OTLPAtomicFile.replace(path, with: content)
        try openForWriting(path, contentBytes: content.count)
        self.path = path
        self.outputLock = outputLock
        return (recovery, recovered)
    }

    /// Which of `spanIDs` the file output at `path` holds: the file at the path, and the newest one rotated away
    /// (`STEM.1.EXT`: where a new pipeline moves the previous process's file when it starts).
    private static func spanIDs(inOutput path: String, among wanted: Set<OTLPSpanID>) -> Set<OTLPSpanID> {
        spanIDs(inFile: path, among: wanted).union(spanIDs(inFile: OTLPRotatedFileName(path: path).path(index: 1), among: wanted))
    }

    /// Which of `spanIDs` the file at `path` (a traces output, of any framing) holds: read up to its end or its
    /// first unreadable record.
    private static func spanIDs(inFile path: String, among wanted: Set<OTLPSpanID>) -> Set<OTLPSpanID> {
        var found = Set<OTLPSpanID>()
        guard (try? OTLPFileStatus.of(path: path))??.isRegularFile == true,
            let reader = try? OTLPRecordReader(path: path, options: OTLPReaderOptions(signal: .traces))
        else { return found }
        while let record = try? reader.next() {
            guard case .traces(let data) = record.payload else { continue }
            for group in data.resourceGroups {
                for scopeGroup in group.scopeGroups {
                    for span in scopeGroup.items { if let id = span.spanID, wanted.contains(id) { found.insert(id) } }
                }
            }
        }
        return found
    }

    /// The previous journal's bytes (at most `maxBytes`) and how many bytes were left unread, or `nil`
    /// when there is none.
    private static func readPrevious(_ path: String, maxBytes: Int) throws(OTLPWriteError) -> ([UInt8], Int)? {
        guard try OTLPFileStatus.of(path: path) != nil else { return nil }
        let (descriptor, status) = try OTLPSystemCall.openRegularFile(path, flags: O_RDONLY, "cannot open the span journal \(path)")
        defer { closeDescriptor(descriptor) }
        let size = Int(clamping: status.sizeBytes)
        var bytes = [UInt8](repeating: 0, count: min(size, maxBytes))
        var done = 0
        while done < bytes.count {
            let count = try bytes.withUnsafeMutableBytes { raw in
                Result { () throws(OTLPWriteError) in
                    try OTLPSystemCall.check("cannot read the span journal \(path)") {
                        pread(descriptor, raw.baseAddress! + done, raw.count - done, off_t(done))
                    }
                }
            }.get()
            if count == 0 { break }
            done += count
        }
        bytes.removeLast(bytes.count - done)
        return (bytes, max(0, size - done))
    }

    /// Closes the journal at a clean shutdown, after the pipeline exported what it held: the file is removed
    /// when it holds nothing; spans ended and not exported (a failed write) stay for the next start. Spans
    /// never ended are left out (the app ended without ending them) and reported.
    package func close() {
        lock.lock()
        defer { lock.unlock() }
        guard descriptor >= 0, let path else { return }
        if _refusedSpans > 0 {
            diagnostics(
                "OTLPWire telemetry: \(_refusedSpans) spans were not journaled: the span journal \(path) was full (spans not yet exported filled half its \(settings.maxFileBytes) bytes)"
            )
        }
        if _unwrittenSpans > 0 {
            diagnostics(
                "OTLPWire telemetry: \(_unwrittenSpans) spans were not journaled: writing the span journal \(path) failed (the first error was reported)"
            )
        }
        let unended = live.filter { $0.value.isOpen }
        if !unended.isEmpty {
            diagnostics(
                "OTLPWire telemetry: \(unended.count) journaled \(unended.count == 1 ? "span was" : "spans were") still open at shutdown; not exported (end spans before shutdown())"
            )
            for key in unended.keys { _ = removeLive(key) }
            openCount = 0
        }
        if live.isEmpty {
            unlink(path)
        } else {
            compact()
            // The file kept for the next start ends with its last record (no preallocated zeros).
            _ = ftruncate(descriptor, off_t(fileBytes))
        }
        unmap()
        closeDescriptor(descriptor)
        descriptor = -1
        outputLock = nil
    }
}

extension Array where Element == OTLPAttribute {
    /// Sorts the attributes by key, with `last`'s after the others (when not in that order already).
    fileprivate mutating func sortByKey(last: String?) {
        func precedes(_ first: OTLPAttribute, _ second: OTLPAttribute) -> Bool {
            let firstIsLast = first.key == last
            return firstIsLast != (second.key == last) ? !firstIsLast : first.key < second.key
        }
        guard zip(self, dropFirst()).contains(where: { precedes($1, $0) }) else { return }
        sort(by: precedes)
    }
}

extension OTLPScopedSpan {
    /// The span's identity in a journal (`nil` without IDs).
    var journalKey: OTLPSpanJournal.Key? {
        guard let traceID = storedSpanIDs.traceID, let spanID = storedSpanIDs.spanID else { return nil }
        return OTLPSpanJournal.Key(traceID: traceID, spanID: spanID)
    }
}

/// `close(2)`, outside the journal (whose `close()` would hide it).
func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}

extension OTLPSpanJournal {
    /// Tells the journals of the journaled spans among `items` (an export stage's batch, which the exporter
    /// took) that they are exported. A batch of log records, or of spans no journal holds, costs a scan.
    /// `durable`: the exporter is a durable destination (a file output, a spool; ``exported(_:durable:)``).
    static func acknowledgeExported<Item: OTLPExportable>(_ items: [Item], durable: Bool) {
        forEachJournal(of: items) { journal, spans in journal.exported(spans, durable: durable) }
    }

    /// Takes out of `items` the recovered spans that the destination of kind `kind` holds already (the previous
    /// process's export reached it, not every destination), acknowledging them as that destination's: each
    /// destination gets a recovered span once. Returns how many were taken out. A scan of tags for other items.
    package static func takeOutHeld<Item: OTLPExportable>(_ items: inout [Item], by kind: OTLPExportDestination.Kind) -> Int {
        guard Item.self == OTLPScopedSpan.self else { return 0 }
        let spans = unsafeBitCast(items, to: [OTLPScopedSpan].self)
        guard spans.contains(where: { $0.journalTag?.heldBy.contains(kind) == true }) else { return 0 }
        var kept: [OTLPScopedSpan] = []
        var held: [OTLPScopedSpan] = []
        for span in spans {
            if span.journalTag?.heldBy.contains(kind) == true { held.append(span) } else { kept.append(span) }
        }
        items = unsafeBitCast(kept, to: [Item].self)
        forEachJournal(of: held) { journal, spans in journal.exported(spans, durable: true) }
        return held.count
    }

    /// Whether `exporter` (an export stage's, perhaps wrapped for a factory's exporter) is a durable destination
    /// of spans: one that can tell a next start whether a write got there (a spool).
    /// The kind of durable destination `exporter` (perhaps wrapped for a factory's exporter) is, if any.
    static func destinationKind<Item: OTLPExportable>(of exporter: some OTLPExporter<Item>) -> OTLPExportDestination.Kind? {
        let unwrapped: Any = (exporter as? OTLPAnyExporter<Item>)?.base ?? exporter
        return (unwrapped as? any OTLPSpanJournalDestination)?.journalDestinationKind
    }

    static func isDurableDestination<Item: OTLPExportable>(_ exporter: some OTLPExporter<Item>) -> Bool {
        let unwrapped: Any = (exporter as? OTLPAnyExporter<Item>)?.base ?? exporter
        return unwrapped is any OTLPExportDestinationChecking
    }

    /// Tells the journals of the journaled spans among `items` that they are about to be written to
    /// `destination` (the write-ahead intent).
    package static func markExporting<Item: OTLPExportable>(_ items: [Item], to destination: OTLPExportDestination?) {
        forEachJournal(of: items) { journal, spans in journal.exporting(spans, to: destination) }
    }

    /// The journaled spans among `items` (none for log records): those an exporter announces and acknowledges.
    /// The slice is looked at as spans once, not item by item in generic code (which cost allocations per item
    /// on the hot path of spans that are not journaled).
    package static func journaledSpans<Item: OTLPExportable>(_ items: ArraySlice<Item>) -> [OTLPScopedSpan] {
        guard Item.self == OTLPScopedSpan.self else { return [] }
        let spans = unsafeBitCast(items, to: ArraySlice<OTLPScopedSpan>.self)
        guard let first = spans.firstIndex(where: { $0.journalTag != nil }) else { return [] }
        return spans[first...].filter { $0.journalTag != nil }
    }

    private static func forEachJournal<Item: OTLPExportable>(of items: [Item], _ body: (OTLPSpanJournal, [OTLPScopedSpan]) -> Void) {
        guard Item.self == OTLPScopedSpan.self else { return }
        let spans = unsafeBitCast(items, to: [OTLPScopedSpan].self)
        guard let first = spans.firstIndex(where: { $0.journalTag != nil }) else { return }
        var byJournal: [ObjectIdentifier: (journal: OTLPSpanJournal, spans: [OTLPScopedSpan])] = [:]
        for span in spans[first...] {
            guard let journal = span.journalTag?.journal else { continue }
            byJournal[ObjectIdentifier(journal), default: (journal, [])].spans.append(span)
        }
        for (journal, taken) in byJournal.values { body(journal, taken) }
    }
}
