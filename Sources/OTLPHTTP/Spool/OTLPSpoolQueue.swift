import Foundation
package import OTLPTelemetry
package import OTLPWire

/// The on-disk queue of one signal's spool directory: encoded requests appended as u32be-framed records to
/// numbered files, read back in order, and acknowledged durably.
///
/// Layout of the directory (`DIR/traces` or `DIR/logs`):
/// - `00000000000000000007.u32be.bin`: the file being appended to (at most one).
/// - `00000000000000000006-512.u32be.bin`: a sealed file and its item count (512), so that neither dropping
///   it nor counting what waits needs to read it.
/// - `checkpoint`: what the collector acknowledged, `FILE OFFSET ITEMS` (the file's number, the end of the
///   last acknowledged record in it, the items acknowledged in it), replaced atomically.
/// - `.lock`: the lock that keeps a second process out, inside the directory so every path to it meets it.
/// - `rejected/`: the quarantine, requests the collector refused for their content, one u32be record per
///   file `NUMBER-ITEMS.u32be.bin` (readable with `otlp-dump`), at most ``quarantineMaxBytes`` (the oldest
///   go first).
///
/// A file is deleted when every record in it is acknowledged, or (the oldest first, never the one being
/// uploaded nor the one being appended to) when the directory would hold more than its budget. A record
/// holds at most ``maxAppendBytes``, a file at most ``fileBytes``, so the files together stay within
/// ``maxBytes``, or two files when ``maxBytes`` is smaller than that (the one being uploaded and the one
/// being appended to).
package final class OTLPSpoolQueue: @unchecked Sendable {
    /// One record read for upload.
    package struct Record: Sendable {
        /// The file's number.
        package var file: UInt64
        /// Offset of the record's length prefix in the file.
        package var offset: Int
        /// Offset just past the record.
        package var end: Int
        /// The record as stored: an encoded `Export*ServiceRequest` (protobuf), or one gzip member of it
        /// (``request(ofRecord:)`` tells them apart).
        package var bytes: [UInt8]
    }

    /// Files of the queue, oldest first.
    private struct SpoolFile {
        var number: UInt64
        var bytes: Int
        var items: Int
        var isSealed: Bool
    }

    /// The directory of the queue.
    package let directory: String
    /// The signal of its records.
    package let signal: OTLPSignal
    /// Most bytes its files hold together (one file over it at most, while it is being uploaded).
    package let maxBytes: Int
    /// A file is sealed and a new one started when a record would take it past this size: an eighth of
    /// ``maxBytes``, from 32 KiB to 16 MiB.
    package let fileBytes: Int
    /// The largest record appended: ``fileBytes`` (a larger batch is split by its exporter).
    package var maxAppendBytes: Int { min(fileBytes, Self.maxRecordBytes) }
    /// Most bytes the quarantine holds: a quarter of ``maxBytes``, at least 1 MiB (the newest file is kept
    /// whatever its size).
    package var quarantineMaxBytes: Int { max(maxBytes / 4, 1 << 20) }
    /// Where requests the collector refused for their content are kept: `rejected/` inside ``directory``.
    package var quarantineDirectory: String { "\(directory)/rejected" }
    /// `fsync` of each appended record and of each checkpoint (`fsync`), or only of checkpoints (otherwise).
    package let durability: OTLPDurability
    /// How records are checked when read back: every limit as wide as its range allows (whatever the
    /// spool's own exporter wrote passes), the record size and decoded memory still bounded.
    package static let readOptions = OTLPDecodingOptions(
        maxRecordBytes: 64 << 20, maxNestingDepth: OTLPDecodingOptions.maxNestingDepthRange.upperBound,
        maxAttributesPerItem: OTLPDecodingOptions.maxAttributesPerItemRange.upperBound, maxDecodedBytes: 1 << 30)
    /// Largest record written and read back (64 MiB); a longer prefix is damage. A gzip record's content
    /// is held to the same limit.
    package static let maxRecordBytes = readOptions.maxRecordBytes

    /// The encoded request a record holds: the record itself, or the content of the one gzip member or zstd
    /// frame it is (a record starting with the gzip or zstd magic, which no request this package writes does).
    /// Faults of the member or frame are thrown with offsets in the record.
    package static func request(ofRecord stored: [UInt8]) throws(OTLPReadError) -> [UInt8] {
        if OTLPGzip.isCompressed(stored) { return try OTLPGzip.decompress(stored, maxBytes: maxRecordBytes) }
        if OTLPZstd.startsFrame(stored) { return try OTLPZstd.decompress(stored, maxBytes: maxRecordBytes) }
        return stored
    }

    private let lock = NSCondition()
    /// The quarantine's files, once listed (``quarantineIndex()``).
    private var quarantined: [SpoolFile]?
    /// Checks records when damage is stepped over (with the lock held).
    private let checkDecoder = OTLPDecoder(options: OTLPSpoolQueue.readOptions)
    private var directoryLock: OTLPOutputLock?
    private var files: [SpoolFile] = []
    private var appendDescriptor: Int32 = -1
    private var nextNumber: UInt64 = 1
    /// Acknowledged: everything before `acknowledgedOffset` in file `acknowledgedFile`, and every earlier file.
    private var acknowledgedFile: UInt64 = 0
    private var acknowledgedOffset = 0
    private var acknowledgedItems = 0
    /// The file a record was last read from and not yet acknowledged: never dropped for the budget.
    private var inFlightFile: UInt64?
    private var isClosed = false
    private var unreportedDamagedItems = 0
    /// Set by ``wake()``: the next wait returns at once, even if it had not begun yet.
    private var isWakeRequested = false
    /// Records found damaged (torn at the end of a file by a crash, or unreadable) and skipped, since opening.
    package var damagedRecords: Int { lock.withLock { damagedRecordCount } }
    private var damagedRecordCount = 0
    /// Whether the checkpoint found at opening did not match the files (then every record is sent).
    package private(set) var isCheckpointDistrusted = false
    /// Items found in the spool when it was opened: what an earlier process left.
    package private(set) var recoveredItems = 0

    /// Opens (creating if missing) the queue in `directory` and takes its lock: a second process, or a
    /// second queue in this one, gets an error naming the holder. Recovers after a crash: a file the
    /// checkpoint says is acknowledged completely is deleted, a checkpoint that does not match the files is
    /// not trusted (``isCheckpointDistrusted``), and a file left open is read once to count its items and
    /// cut off a torn record at its end (counted in ``damagedRecords``), then sealed.
    package init(directory: String, signal: OTLPSignal, maxBytes: Int, durability: OTLPDurability) throws(OTLPWriteError) {
        self.directory = directory
        self.signal = signal
        self.maxBytes = max(maxBytes, 32 << 10)
        fileBytes = min(max(self.maxBytes / 8, 32 << 10), 16 << 20)
        self.durability = durability
        try OTLPSystemCall.makeDirectories(directory)
        // The lock file is `.lock` inside the signal's directory: a symbolic link to it meets the same lock.
        directoryLock = try OTLPOutputLock(directory: directory)
        try readCheckpoint()
        var found: [SpoolFile] = []
        var numbers = Set<UInt64>()
        for name in try OTLPSystemCall.names(inDirectory: directory).sorted() {
            // Names not of this spool (or a second file of one number) are left alone.
            guard var file = Self.parse(name), Self.isRegularFile("\(directory)/\(name)"), numbers.insert(file.number).inserted else {
                continue
            }
            if !file.isSealed {
                file = try recover(file)
            } else {
                file.bytes = try Self.size(of: path(of: file))
            }
            found.append(file)
        }
        files = found.sorted { $0.number < $1.number }
        // The checkpoint names the file being uploaded (or the last one, deleted when done): earlier files
        // are deleted before it moves on. A checkpoint behind which files remain, or past its file's end,
        // does not describe this directory: it is not trusted, and everything is sent (again, never lost).
        var onBoundary = true
        if let first = files.first, first.number == acknowledgedFile {
            onBoundary = try isRecordBoundary(acknowledgedOffset, in: path(of: first), size: first.bytes)
        }
        if let first = files.first, first.number < acknowledgedFile || !onBoundary {
            isCheckpointDistrusted = true
            acknowledgedFile = 0
            acknowledgedOffset = 0
            acknowledgedItems = 0
        }
        nextNumber = max((files.last?.number ?? 0) + 1, acknowledgedFile + 1)
        if let first = files.first, first.number == acknowledgedFile, acknowledgedOffset >= first.bytes {
            // Acknowledged completely; the process ended before deleting it.
            unlink(path(of: first))
            files.removeFirst()
        }
        if files.first?.number != acknowledgedFile { acknowledgedItems = 0 }
        acknowledgedItems = min(acknowledgedItems, files.first?.items ?? 0)
        recoveredItems = files.reduce(0) { $0 + $1.items } - acknowledgedItems
    }

    deinit {
        if appendDescriptor >= 0 { close(appendDescriptor) }
    }

    // MARK: Appending

    /// Appends one encoded request of `items` items as a record, made durable as ``durability`` says.
    /// Returns the items dropped to stay within ``maxBytes`` (the oldest files'). A failed write leaves no
    /// part of the record behind.
    package func append(
        _ request: [UInt8], items: Int, beforeWriting: ((OTLPExportDestination) -> Void)? = nil
    ) throws(OTLPWriteError) -> Int {
        var record: [UInt8] = []
        record.reserveCapacity(OTLPLengthPrefix.u32Bytes + request.count)
        guard request.count <= maxAppendBytes, OTLPLengthPrefix.encode(request.count, framing: .u32be, into: &record) else {
            throw .unframeable("a request of \(request.count) bytes is over the spool's \(maxAppendBytes)-byte record limit")
        }
        record += request
        return try locked { () throws(OTLPWriteError) -> Int in
            guard !isClosed else { throw .io("the spool \(directory) is closed") }
            if let last = files.last, !last.isSealed, last.bytes > 0, last.bytes + record.count > fileBytes {
                try seal(index: files.count - 1)
            }
            if files.last?.isSealed != false {
                try startFile()
            }
            let index = files.count - 1
            let start = files[index].bytes
            // The span journal's write-ahead intent: where the record goes, before it goes there.
            beforeWriting?(
                OTLPExportDestination(
                    kind: .spool, path: directory, fileNumber: files[index].number, offsetBytes: start, lengthBytes: record.count,
                    checksum: OTLPCRC32.checksum(record)))
            try Self.write(record, to: appendDescriptor, at: start, path: path(of: files[index]))
            if durability == .fsync {
                try OTLPSystemCall.check("cannot fsync \(path(of: files[index]))") { fsync(appendDescriptor) }
            }
            files[index].bytes += record.count
            files[index].items += items
            let dropped = enforceBudget()
            lock.broadcast()
            return dropped
        }
    }

    /// Whether the record `destination` announced (``append(_:items:beforeWriting:)``, by an earlier process
    /// on this directory) got into the spool: the file of its number holds its bytes at its offset, or the
    /// checkpoint is past it (it was sent, or its file skipped: either way the spool took it).
    package func holds(_ destination: OTLPExportDestination) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let end = destination.offsetBytes + destination.lengthBytes
        if !isCheckpointDistrusted,
            acknowledgedFile > destination.fileNumber || (acknowledgedFile == destination.fileNumber && acknowledgedOffset >= end)
        {
            return true
        }
        guard let file = files.first(where: { $0.number == destination.fileNumber }) else { return false }
        return destination.isWritten(inFileAt: path(of: file))
    }

    /// Items waiting (appended or recovered, not yet acknowledged).
    package var pendingItems: Int {
        lock.withLock { files.reduce(0) { $0 + $1.items } - (files.first?.number == acknowledgedFile ? acknowledgedItems : 0) }
    }

    /// Bytes of the queue's files.
    package var bytes: Int { lock.withLock { files.reduce(0) { $0 + $1.bytes } } }

    // MARK: Reading and acknowledging

    /// The oldest record not yet acknowledged, or `nil` when there is none. A length prefix that does not
    /// fit its file (damage) is stepped over to the next intact record (``resynchronize(after:in:size:path:)``),
    /// or ends the file when none follows; either is counted in ``damagedRecords``, and the items lost are
    /// reported when the file is done.
    package func next() throws(OTLPWriteError) -> Record? {
        try locked { () throws(OTLPWriteError) -> Record? in
            while let file = files.first {
                let offset = file.number == acknowledgedFile ? acknowledgedOffset : 0
                if offset >= file.bytes {
                    guard file.isSealed else { return nil }
                    // Fully acknowledged (a crash between the checkpoint and the delete, or a skipped file).
                    try removeAcknowledgedFirstFile()
                    continue
                }
                let filePath = path(of: file)
                let descriptor: Int32
                do throws(OTLPWriteError) {
                    descriptor = try OTLPSystemCall.check("cannot open \(filePath)") {
                        open(filePath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
                    }
                } catch {
                    guard error.errno == ENOENT else { throw error }
                    // Deleted behind the spool's back: its items are lost; go on with the next file.
                    unreportedDamagedItems += file.items - (file.number == acknowledgedFile ? acknowledgedItems : 0)
                    files.removeFirst()
                    continue
                }
                defer { close(descriptor) }
                guard let body = try Self.readRecord(at: offset, in: descriptor, size: file.bytes, path: filePath) else {
                    // A length prefix that does not fit: the records after the damage are found again
                    // (regression: the rest of the file was deleted).
                    guard let resume = try resynchronize(after: offset, in: descriptor, size: file.bytes, path: filePath) else {
                        skipRestOfFirstFile()
                        continue
                    }
                    damagedRecordCount += 1
                    try acknowledgeLocked(file: file.number, end: resume, items: 0)
                    continue
                }
                inFlightFile = file.number
                return Record(file: file.number, offset: offset, end: offset + OTLPLengthPrefix.u32Bytes + body.count, bytes: body)
            }
            return nil
        }
    }

    /// Waits until a record may be waiting, ``wake()`` is called or `seconds` pass; returns whether one may be waiting.
    package func waitForRecords(withinSeconds seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        return lock.withLock {
            if !isClosed && !hasUnreadRecords && !isWakeRequested { _ = lock.wait(until: deadline) }
            isWakeRequested = false
            return hasUnreadRecords
        }
    }

    /// Items lost since the last call: in files deleted behind the spool's back, or after a damaged record
    /// in a sealed file (whose item count is known).
    package func takeLostItems() -> Int {
        lock.withLock {
            defer { unreportedDamagedItems = 0 }
            return unreportedDamagedItems
        }
    }

    /// Wakes whoever waits in ``waitForRecords(withinSeconds:)``.
    package func wake() {
        lock.withLock {
            isWakeRequested = true
            lock.broadcast()
        }
    }

    /// The record last read will not be acknowledged now (the collector cannot be reached): its file may be
    /// dropped for the size bound while the uploader waits; the next ``next()`` reads from the oldest again.
    package func abandonInFlight() {
        lock.withLock { inFlightFile = nil }
    }

    /// Records that `record`, of `items` items, was acknowledged by the collector (or refused for good):
    /// the checkpoint is replaced atomically and made durable before this returns, and a file whose every
    /// record is acknowledged is deleted.
    package func acknowledge(_ record: Record, items: Int) throws(OTLPWriteError) {
        try locked { () throws(OTLPWriteError) in
            inFlightFile = nil
            try acknowledgeLocked(file: record.file, end: record.end, items: items)
        }
    }

    /// Records everything of file `number` before `end` as acknowledged, `items` more items with it.
    private func acknowledgeLocked(file number: UInt64, end: Int, items: Int) throws(OTLPWriteError) {
        if number != acknowledgedFile { acknowledgedItems = 0 }
        acknowledgedFile = number
        acknowledgedOffset = end
        acknowledgedItems += items
        try writeCheckpoint()
        if let first = files.first, first.number == number, first.isSealed, end >= first.bytes {
            try removeAcknowledgedFirstFile()
        }
    }

    /// Keeps `request` (a protobuf request of `items` items the collector refused for its content) in the
    /// quarantine, durably, as one u32be record in a file of its own. Returns the items of the oldest
    /// quarantined files deleted to stay within ``quarantineMaxBytes`` (counted `rejected` when they were
    /// refused).
    package func quarantine(_ request: [UInt8], items: Int) throws(OTLPWriteError) -> Int {
        var record: [UInt8] = []
        guard OTLPLengthPrefix.encode(request.count, framing: .u32be, into: &record) else {
            throw .unframeable("a refused request of \(request.count) bytes cannot be framed")
        }
        record += request
        return try locked { () throws(OTLPWriteError) -> Int in
            var kept = try quarantineIndex()
            let file = SpoolFile(number: (kept.last?.number ?? 0) + 1, bytes: record.count, items: items, isSealed: true)
            try OTLPAtomicFile.replace("\(quarantineDirectory)/\(Self.name(of: file))", with: record)
            kept.append(file)
            // The oldest go first while the quarantine is over its bound; the newest always stays.
            var total = kept.reduce(0) { $0 + $1.bytes }
            var dropped = 0
            while total > quarantineMaxBytes, kept.count > 1 {
                let oldest = kept.removeFirst()
                if unlink("\(quarantineDirectory)/\(Self.name(of: oldest))") == 0 { dropped += oldest.items }
                total -= oldest.bytes
            }
            quarantined = kept
            return dropped
        }
    }

    /// The quarantine's files, oldest first: listed once, then kept up to date (regression: every refused
    /// record listed and measured the whole quarantine again). The quarantine must be a directory of the
    /// spool's own, never a symbolic link to somewhere else.
    private func quarantineIndex() throws(OTLPWriteError) -> [SpoolFile] {
        if let quarantined { return quarantined }
        try OTLPSystemCall.makeDirectories(quarantineDirectory)
        var info = stat()
        try OTLPSystemCall.check("cannot inspect \(quarantineDirectory)") { lstat(quarantineDirectory, &info) }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .system("\(quarantineDirectory) is not a directory of the spool's own (a symbolic link or a file)", errno: ENOTDIR)
        }
        var found: [SpoolFile] = []
        for name in try OTLPSystemCall.names(inDirectory: quarantineDirectory) {
            guard var file = Self.parse(name), file.isSealed, Self.isRegularFile("\(quarantineDirectory)/\(name)") else { continue }
            file.bytes = (try? Self.size(of: "\(quarantineDirectory)/\(name)")) ?? 0
            found.append(file)
        }
        found.sort { $0.number < $1.number }
        quarantined = found
        return found
    }

    /// Seals the file being appended to and releases the lock; later appends fail.
    package func release() {
        lock.withLock {
            guard !isClosed else { return }
            isClosed = true
            if let last = files.last, !last.isSealed { try? seal(index: files.count - 1) }
            // The file just sealed may be acknowledged completely: nothing of it is left to send.
            if let first = files.first, first.number == acknowledgedFile, acknowledgedOffset >= first.bytes {
                try? removeAcknowledgedFirstFile()
            }
            directoryLock = nil
            lock.broadcast()
        }
    }

    // MARK: Internals (called with the lock held)

    private func locked<Value>(_ body: () throws(OTLPWriteError) -> Value) throws(OTLPWriteError) -> Value {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    private var hasUnreadRecords: Bool {
        guard let first = files.first else { return false }
        let offset = first.number == acknowledgedFile ? acknowledgedOffset : 0
        return offset < first.bytes || files.count > 1 || first.isSealed
    }

    private func path(of file: SpoolFile) -> String {
        "\(directory)/\(Self.name(of: file))"
    }

    private static func name(of file: SpoolFile) -> String {
        let number = String(file.number)
        let padded = String(repeating: "0", count: max(0, 20 - number.count)) + number
        return file.isSealed ? "\(padded)-\(file.items).u32be.bin" : "\(padded).u32be.bin"
    }

    /// A spool file's number, item count and state from its name; `nil` for other names.
    private static func parse(_ name: String) -> SpoolFile? {
        guard name.hasSuffix(".u32be.bin") else { return nil }
        let stem = name.dropLast(".u32be.bin".count)
        let parts = stem.split(separator: "-", omittingEmptySubsequences: false)
        // Numbers and counts far past anything a spool reaches are not ours (and must not overflow sums).
        guard parts[0].count == 20, parts[0].allSatisfy(\.isWholeDigit), let number = UInt64(parts[0]), number < 1 << 62 else { return nil }
        switch parts.count {
        case 1: return SpoolFile(number: number, bytes: 0, items: 0, isSealed: false)
        case 2:
            guard !parts[1].isEmpty, parts[1].allSatisfy(\.isWholeDigit), let items = Int(parts[1]), (0...(1 << 40)).contains(items) else {
                return nil
            }
            return SpoolFile(number: number, bytes: 0, items: items, isSealed: true)
        default: return nil
        }
    }

    private func startFile() throws(OTLPWriteError) {
        if appendDescriptor >= 0 {
            close(appendDescriptor)
            appendDescriptor = -1
        }
        let file = SpoolFile(number: nextNumber, bytes: 0, items: 0, isSealed: false)
        let filePath = path(of: file)
        appendDescriptor = try OTLPSystemCall.check("cannot create \(filePath)") {
            open(filePath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        }
        nextNumber += 1
        files.append(file)
        try syncDirectory()
    }

    private func seal(index: Int) throws(OTLPWriteError) {
        let open = files[index]
        var sealed = open
        sealed.isSealed = true
        if appendDescriptor >= 0 {
            if durability != .none { _ = fsync(appendDescriptor) }
            close(appendDescriptor)
            appendDescriptor = -1
        }
        try OTLPSystemCall.renameWithoutReplacing(path(of: open), to: path(of: sealed))
        files[index] = sealed
        try syncDirectory()
    }

    /// Drops the oldest files while the queue is over its budget; returns their unacknowledged items.
    private func enforceBudget() -> Int {
        var dropped = 0
        var total = files.reduce(0) { $0 + $1.bytes }
        var index = 0
        while total > maxBytes, index < files.count - 1 {
            let file = files[index]
            guard file.number != inFlightFile else {
                index += 1
                continue
            }
            dropped += file.items - (file.number == acknowledgedFile ? acknowledgedItems : 0)
            unlink(path(of: file))
            total -= file.bytes
            files.remove(at: index)
        }
        return dropped
    }

    private func removeFirstFile() throws(OTLPWriteError) {
        let first = files.removeFirst()
        try OTLPSystemCall.check("cannot delete \(path(of: first))") { unlink(path(of: first)) }
    }

    /// Deletes the first file, every record of which is acknowledged. Items of it acknowledged as none (its
    /// unreadable records) are lost: reported as damaged (regression: they left the pending count uncounted).
    private func removeAcknowledgedFirstFile() throws(OTLPWriteError) {
        let first = files[0]
        let acknowledged = first.number == acknowledgedFile ? acknowledgedItems : 0
        unreportedDamagedItems += max(0, first.items - acknowledged)
        try removeFirstFile()
    }

    /// Treats the rest of the first file as acknowledged: a damaged record ends what can be read of it.
    private func skipRestOfFirstFile() {
        damagedRecordCount += 1
        let file = files[0]
        unreportedDamagedItems += max(0, file.items - (file.number == acknowledgedFile ? acknowledgedItems : 0))
        if file.isSealed {
            files.removeFirst()
            unlink(path(of: file))
        } else {
            // Only a write that failed half-way can leave this in the open file: skip to a new file.
            acknowledgedFile = file.number
            acknowledgedOffset = file.bytes
            acknowledgedItems = file.items
            try? seal(index: 0)
        }
    }

    /// Reads a file left open by a crash record by record, to count the items of its intact records (see
    /// ``isIntact(_:)``) and cut off a torn tail. Damage inside (a record whose content or length prefix is
    /// damaged, with intact records after it) is stepped over with ``resynchronize(after:in:size:path:)`` and
    /// left in place, to be stepped over again (and counted) when it is read for upload: the file keeps its
    /// offsets, so a checkpoint into it stays true (regression: rewriting the file without its damage moved
    /// the records under the checkpoint, and unacknowledged ones were skipped). Only the tail after the last
    /// intact record is cut, counted in ``damagedRecords``. Then the file is sealed.
    private func recover(_ found: SpoolFile) throws(OTLPWriteError) -> SpoolFile {
        var file = found
        let filePath = path(of: file)
        let descriptor = try OTLPSystemCall.check("cannot open \(filePath)") {
            open(filePath, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        }
        defer { close(descriptor) }
        let size = try Self.size(of: filePath)
        var offset = 0
        /// Just past the last intact record: what is after it is a torn tail.
        var intactEnd = 0
        var items = 0
        while offset < size {
            if let body = try Self.readRecord(at: offset, in: descriptor, size: size, path: filePath), let count = isIntact(body) {
                items += count
                offset += OTLPLengthPrefix.u32Bytes + body.count
                intactEnd = offset
                continue
            }
            // Damaged here (the content, the length, an empty record no exporter writes): intact records may
            // follow (regression: the file was cut here, and every intact record after it with it).
            guard let next = try resynchronize(after: offset, in: descriptor, size: size, path: filePath) else { break }
            offset = next
        }
        if intactEnd < size {
            damagedRecordCount += 1
            try OTLPSystemCall.check("cannot cut the torn record off \(filePath)") { ftruncate(descriptor, off_t(intactEnd)) }
            if durability != .none { _ = fsync(descriptor) }
        }
        file.bytes = intactEnd
        file.items = items
        var sealed = file
        sealed.isSealed = true
        try OTLPSystemCall.renameWithoutReplacing(filePath, to: path(of: sealed))
        try syncDirectory()
        return sealed
    }

    /// The items of a stored record when it is one the exporter could have written: readable as the
    /// uploader reads it (a gzip record by its content) and holding at least one item; `nil` otherwise.
    private func isIntact(_ body: [UInt8]) -> Int? {
        guard let request = try? Self.request(ofRecord: body),
            let count = try? request.withUnsafeBytes({ bytes in
                Result { () throws(OTLPReadError) in try checkDecoder.check(bytes, as: signal) }
            }).get(),
            count > 0
        else { return nil }
        return count
    }

    /// Where intact records start again after damage at `offset`: the first later offset where an intact
    /// record (``isIntact(_:)``) starts that is followed by the end of the file, a torn tail, or a second
    /// intact record; `nil` when there is none (the rest is a torn tail). Bounded: it reads at most four
    /// times the file's size before giving up.
    private func resynchronize(after offset: Int, in descriptor: Int32, size: Int, path: String) throws(OTLPWriteError) -> Int? {
        var budget = 4 * size + (1 << 20)
        var candidate = offset + 1
        while candidate + OTLPLengthPrefix.u32Bytes <= size, budget > 0 {
            defer { candidate += 1 }
            budget -= OTLPLengthPrefix.u32Bytes
            guard let length = try Self.recordLength(at: candidate, in: descriptor, size: size, path: path) else { continue }
            budget -= length
            guard let body = try Self.readRecord(at: candidate, in: descriptor, size: size, path: path), isIntact(body) != nil else {
                continue
            }
            let next = candidate + OTLPLengthPrefix.u32Bytes + length
            guard next < size, let followingLength = try Self.recordLength(at: next, in: descriptor, size: size, path: path) else {
                // The end of the file, or a torn tail, after it.
                return candidate
            }
            budget -= followingLength
            if let following = try Self.readRecord(at: next, in: descriptor, size: size, path: path), isIntact(following) != nil {
                return candidate
            }
        }
        return nil
    }

    /// Steps over the damaged `record` (read by ``next()``, found unreadable by the uploader): acknowledged
    /// as far as the next intact record of its file (``resynchronize(after:in:size:path:)``), or the rest of
    /// the file when none follows. Counted in ``damagedRecords``; the items it held are reported lost when
    /// its file is done (regression: a damaged length that still fitted the file swallowed the intact
    /// records after it).
    package func skipDamaged(_ record: Record) throws(OTLPWriteError) {
        try locked { () throws(OTLPWriteError) in
            inFlightFile = nil
            damagedRecordCount += 1
            guard let file = files.first, file.number == record.file else { return }
            let filePath = path(of: file)
            let descriptor = try OTLPSystemCall.check("cannot open \(filePath)") {
                open(filePath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            }
            defer { close(descriptor) }
            let resume = try resynchronize(after: record.offset, in: descriptor, size: file.bytes, path: filePath) ?? file.bytes
            try acknowledgeLocked(file: file.number, end: resume, items: 0)
        }
    }

    // MARK: The checkpoint

    private var checkpointPath: String { "\(directory)/checkpoint" }

    private func readCheckpoint() throws(OTLPWriteError) {
        var info = stat()
        guard lstat(checkpointPath, &info) == 0 else { return }
        // Only a regular file of the spool's own (never a link to somewhere else) is believed.
        guard (info.st_mode & S_IFMT) == S_IFREG, let text = try? String(contentsOfFile: checkpointPath, encoding: .utf8) else {
            isCheckpointDistrusted = true
            return
        }
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count == 3, let file = UInt64(fields[0]), let offset = Int(fields[1]), let items = Int(fields[2]),
            file < (1 << 62) - (1 << 32), (0...(1 << 40)).contains(offset), (0...(1 << 40)).contains(items)
        else {
            // Unreadable: start from the oldest file (records may be sent again, none lost).
            isCheckpointDistrusted = true
            return
        }
        acknowledgedFile = file
        acknowledgedOffset = offset
        acknowledgedItems = items
    }

    private func writeCheckpoint() throws(OTLPWriteError) {
        try OTLPAtomicFile.replace(checkpointPath, with: Array("\(acknowledgedFile) \(acknowledgedOffset) \(acknowledgedItems)\n".utf8))
    }

    // MARK: System calls

    private func syncDirectory() throws(OTLPWriteError) {
        try OTLPAtomicFile.syncDirectory(directory)
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Whether `offset` is where a record of the file at `path` starts (or its end): its length prefixes
    /// are followed from the start, and damage is stepped over as reading steps over it.
    private func isRecordBoundary(_ offset: Int, in path: String, size: Int) throws(OTLPWriteError) -> Bool {
        guard offset > 0 else { return true }
        guard offset <= size else { return false }
        let descriptor = try OTLPSystemCall.check("cannot open \(path)") { open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) }
        defer { close(descriptor) }
        var position = 0
        while position < offset {
            if let length = try Self.recordLength(at: position, in: descriptor, size: size, path: path) {
                position += OTLPLengthPrefix.u32Bytes + length
            } else if let resume = try resynchronize(after: position, in: descriptor, size: size, path: path) {
                position = resume
            } else {
                return false
            }
        }
        return position == offset
    }

    /// The message length of the record whose prefix is at `offset`, when a whole record of at most
    /// ``maxRecordBytes`` starts there within the file's `size` bytes; `nil` when the file ends or is damaged there.
    private static func recordLength(at offset: Int, in descriptor: Int32, size: Int, path: String) throws(OTLPWriteError) -> Int? {
        var prefix = [UInt8](repeating: 0, count: OTLPLengthPrefix.u32Bytes)
        guard size - offset >= prefix.count, try read(&prefix, from: descriptor, at: offset, path: path),
            case .length(let declared, let prefixBytes) = OTLPLengthPrefix.decode(prefix, framing: .u32be),
            declared <= UInt64(maxRecordBytes), Int(declared) <= size - offset - prefixBytes
        else { return nil }
        return Int(declared)
    }

    /// The message of the record at `offset` (see ``recordLength(at:in:size:path:)``), or `nil`.
    private static func readRecord(at offset: Int, in descriptor: Int32, size: Int, path: String) throws(OTLPWriteError) -> [UInt8]? {
        guard let length = try recordLength(at: offset, in: descriptor, size: size, path: path) else { return nil }
        var body = [UInt8](repeating: 0, count: length)
        guard try read(&body, from: descriptor, at: offset + OTLPLengthPrefix.u32Bytes, path: path) else { return nil }
        return body
    }

    private static func size(of path: String) throws(OTLPWriteError) -> Int {
        var info = stat()
        try OTLPSystemCall.check("cannot stat \(path)") { stat(path, &info) }
        return Int(info.st_size)
    }

    /// Fills `buffer` from `offset`; `false` when the file ends first.
    private static func read(_ buffer: inout [UInt8], from descriptor: Int32, at offset: Int, path: String) throws(OTLPWriteError) -> Bool {
        var done = 0
        while done < buffer.count {
            let count = try buffer.withUnsafeMutableBytes { raw in
                Result { () throws(OTLPWriteError) in
                    try OTLPSystemCall.check("cannot read \(path)") {
                        pread(descriptor, raw.baseAddress! + done, raw.count - done, off_t(offset + done))
                    }
                }
            }.get()
            if count == 0 { return false }
            done += count
        }
        return true
    }

    /// Writes all of `bytes` at `offset`; on failure cuts the file back to `offset`, so no torn record stays.
    private static func write(_ bytes: [UInt8], to descriptor: Int32, at offset: Int, path: String) throws(OTLPWriteError) {
        var done = 0
        while done < bytes.count {
            do throws(OTLPWriteError) {
                done += try bytes.withUnsafeBytes { raw in
                    Result { () throws(OTLPWriteError) in
                        try OTLPSystemCall.check("cannot write \(path)") {
                            pwrite(descriptor, raw.baseAddress! + done, raw.count - done, off_t(offset + done))
                        }
                    }
                }.get()
            } catch {
                _ = ftruncate(descriptor, off_t(offset))
                throw error
            }
        }
    }
}

extension Character {
    /// `0` to `9` (not `+`, `-` or other scripts' digits): names the spool writes.
    fileprivate var isWholeDigit: Bool { self >= "0" && self <= "9" }
}
