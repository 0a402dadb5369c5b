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

    /// The encoded request a record holds: the record itself, or the content of the one gzip member it is
    /// (a record starting with the gzip magic, which no protobuf request does). Faults of the gzip member are
    /// thrown with offsets in the record.
    package static func request(ofRecord stored: [UInt8]) throws(OTLPReadError) -> [UInt8] {
        OTLPGzip.isCompressed(stored) ? try OTLPGzip.decompress(stored, maxBytes: maxRecordBytes) : stored
    }

    private let lock = NSCondition()
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
        try Self.makeDirectories(directory)
        // The lock file is `.lock` inside the signal's directory: a symbolic link to it meets the same lock.
        directoryLock = try OTLPOutputLock(directory: directory)
        try readCheckpoint()
        var found: [SpoolFile] = []
        var numbers = Set<UInt64>()
        for name in try OTLPSystemCall.names(inDirectory: directory).sorted() {
            // Names not of this spool (or a second file of one number) are left alone.
            guard var file = Self.parse(name), Self.isRegularFile("\(directory)/\(name)"), numbers.insert(file.number).inserted else { continue }
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
            onBoundary = try Self.isRecordBoundary(acknowledgedOffset, in: path(of: first), size: first.bytes)
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
    package func append(_ request: [UInt8], items: Int) throws(OTLPWriteError) -> Int {
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

    /// Items waiting (appended or recovered, not yet acknowledged).
    package var pendingItems: Int {
        lock.withLock { files.reduce(0) { $0 + $1.items } - (files.first?.number == acknowledgedFile ? acknowledgedItems : 0) }
    }

    /// Bytes of the queue's files.
    package var bytes: Int { lock.withLock { files.reduce(0) { $0 + $1.bytes } } }

    // MARK: Reading and acknowledging

    /// The oldest record not yet acknowledged, or `nil` when there is none. A damaged record (torn, or a
    /// length past ``maxRecordBytes``) ends its file: the rest of the file is skipped and counted in
    /// ``damagedRecords``.
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
                    descriptor = try OTLPSystemCall.check("cannot open \(filePath)") { open(filePath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) }
                } catch {
                    guard error.errno == ENOENT else { throw error }
                    // Deleted behind the spool's back: its items are lost; go on with the next file.
                    unreportedDamagedItems += file.items - (file.number == acknowledgedFile ? acknowledgedItems : 0)
                    files.removeFirst()
                    continue
                }
                defer { close(descriptor) }
                guard let body = try Self.readRecord(at: offset, in: descriptor, size: file.bytes, path: filePath) else {
                    skipRestOfFirstFile()
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

    /// Counts a record found damaged when it was read back.
    package func noteDamagedRecord() {
        lock.withLock { damagedRecordCount += 1 }
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
            if record.file != acknowledgedFile { acknowledgedItems = 0 }
            acknowledgedFile = record.file
            acknowledgedOffset = record.end
            acknowledgedItems += items
            try writeCheckpoint()
            if let first = files.first, first.number == record.file, first.isSealed, record.end >= first.bytes {
                try removeAcknowledgedFirstFile()
            }
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
            try Self.makeDirectories(quarantineDirectory)
            var kept = try OTLPSystemCall.names(inDirectory: quarantineDirectory).compactMap { name -> (number: UInt64, items: Int, name: String)? in
                guard let file = Self.parse(name), file.isSealed, Self.isRegularFile("\(quarantineDirectory)/\(name)") else { return nil }
                return (file.number, file.items, name)
            }.sorted { $0.number < $1.number }
            let file = SpoolFile(number: (kept.last?.number ?? 0) + 1, bytes: record.count, items: items, isSealed: true)
            let name = Self.name(of: file)
            try OTLPAtomicFile.replace("\(quarantineDirectory)/\(name)", with: record)
            kept.append((file.number, items, name))
            // The oldest go first while the quarantine is over its bound; the newest always stays.
            var total = 0
            var sizes: [Int] = []
            for entry in kept {
                let size = (try? Self.size(of: "\(quarantineDirectory)/\(entry.name)")) ?? 0
                sizes.append(size)
                total += size
            }
            var dropped = 0
            var index = 0
            while total > quarantineMaxBytes, index < kept.count - 1 {
                if unlink("\(quarantineDirectory)/\(kept[index].name)") == 0 { dropped += kept[index].items }
                total -= sizes[index]
                index += 1
            }
            return dropped
        }
    }

    /// Seals the file being appended to and releases the lock; later appends fail.
    package func release() {
        lock.withLock {
            guard !isClosed else { return }
            isClosed = true
            if let last = files.last, !last.isSealed { try? seal(index: files.count - 1) }
            // The file just sealed may be acknowledged completely: nothing of it is left to send.
            if let first = files.first, first.number == acknowledgedFile, acknowledgedOffset >= first.bytes { try? removeAcknowledgedFirstFile() }
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
            guard !parts[1].isEmpty, parts[1].allSatisfy(\.isWholeDigit), let items = Int(parts[1]), (0...(1 << 40)).contains(items) else { return nil }
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

    /// Reads a file left open by a crash record by record, keeping every intact record: a record whose
    /// content is damaged is skipped, and so is a damaged length prefix when intact records follow it up to
    /// the end of the file (found by ``resynchronize(after:in:size:path:decoder:)``); only a torn tail (a last
    /// record cut short by the crash) is cut off. Each damage is counted in ``damagedRecords``. A file with
    /// damage inside is rewritten with its intact records only (through a temporary file renamed over it),
    /// then sealed.
    private func recover(_ found: SpoolFile) throws(OTLPWriteError) -> SpoolFile {
        var file = found
        let filePath = path(of: file)
        let descriptor = try OTLPSystemCall.check("cannot open \(filePath)") { open(filePath, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) }
        defer { close(descriptor) }
        let size = try Self.size(of: filePath)
        let decoder = OTLPDecoder(options: Self.readOptions)
        var offset = 0
        var items = 0
        /// The intact records, as byte ranges of the file (length prefixes included).
        var intact: [Range<Int>] = []
        /// Damaged stretches inside the file: a damaged record and the damage right after it count once.
        var damagedInside = 0
        var inDamage = false
        while offset < size {
            if let body = try Self.readRecord(at: offset, in: descriptor, size: size, path: filePath) {
                let end = offset + OTLPLengthPrefix.u32Bytes + body.count
                // Checked as the uploader will check it: a gzip record by its content (regression: every gzip
                // record of a file left open by a crash was cut off as damaged).
                if let count = itemCount(ofRecord: body, decoder: decoder) {
                    items += count
                    intact.append(offset..<end)
                    inDamage = false
                } else {
                    // Damaged content inside a record whose length is intact: only this record is lost
                    // (regression: the file was cut here, and every intact record after it with it).
                    if !inDamage { damagedInside += 1 }
                    inDamage = true
                }
                offset = end
                continue
            }
            // The length prefix here does not fit the file: a torn tail, unless intact records follow.
            guard let next = try resynchronize(after: offset, in: descriptor, size: size, path: filePath, decoder: decoder) else { break }
            if !inDamage { damagedInside += 1 }
            inDamage = true
            offset = next
        }
        let tornTail = offset < size
        damagedRecordCount += damagedInside + (tornTail && !inDamage ? 1 : 0)
        if damagedInside == 0 {
            if tornTail {
                try OTLPSystemCall.check("cannot cut the torn record off \(filePath)") { ftruncate(descriptor, off_t(offset)) }
                if durability != .none { _ = fsync(descriptor) }
            }
            file.bytes = offset
        } else {
            file.bytes = try rewrite(filePath, from: descriptor, keeping: intact)
        }
        file.items = items
        var sealed = file
        sealed.isSealed = true
        try OTLPSystemCall.renameWithoutReplacing(filePath, to: path(of: sealed))
        try syncDirectory()
        return sealed
    }

    /// The items of a stored record, checked as the uploader checks it; `nil` when it is not readable.
    private func itemCount(ofRecord body: [UInt8], decoder: OTLPDecoder) -> Int? {
        guard let request = try? Self.request(ofRecord: body) else { return nil }
        return try? request.withUnsafeBytes { bytes in Result { () throws(OTLPReadError) in try decoder.check(bytes, as: signal) } }.get()
    }

    /// Where intact records start again after a damaged length prefix at `offset`: the first later offset
    /// from which readable records follow one another exactly up to the end of the file, or `nil` (the rest
    /// is a torn tail). Bounded: it reads at most four times the file's size before giving up.
    private func resynchronize(after offset: Int, in descriptor: Int32, size: Int, path: String, decoder: OTLPDecoder) throws(OTLPWriteError) -> Int? {
        var budget = 4 * size + (1 << 20)
        var candidate = offset + 1
        while candidate + OTLPLengthPrefix.u32Bytes <= size, budget > 0 {
            defer { candidate += 1 }
            var position = candidate
            var reachesEnd = true
            while position < size {
                guard let length = try Self.recordLength(at: position, in: descriptor, size: size, path: path) else {
                    reachesEnd = false
                    break
                }
                budget -= OTLPLengthPrefix.u32Bytes + length
                guard budget > 0, let body = try Self.readRecord(at: position, in: descriptor, size: size, path: path),
                    itemCount(ofRecord: body, decoder: decoder) != nil
                else {
                    reachesEnd = false
                    break
                }
                position += OTLPLengthPrefix.u32Bytes + length
            }
            if reachesEnd && position == size { return candidate }
            budget -= OTLPLengthPrefix.u32Bytes
        }
        return nil
    }

    /// Replaces the file at `path` (open as `descriptor`) by its `ranges`, durably: written to a temporary
    /// file beside it, renamed over it. Returns the new size.
    private func rewrite(_ path: String, from descriptor: Int32, keeping ranges: [Range<Int>]) throws(OTLPWriteError) -> Int {
        let temporary = path + ".recovering"
        unlink(temporary)
        let output = try OTLPSystemCall.check("cannot create \(temporary)") {
            open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        }
        var written = 0
        do throws(OTLPWriteError) {
            for range in ranges {
                var bytes = [UInt8](repeating: 0, count: range.count)
                guard try Self.read(&bytes, from: descriptor, at: range.lowerBound, path: path) else {
                    throw .io("\(path) changed while it was recovered")
                }
                try Self.write(bytes, to: output, at: written, path: temporary)
                written += bytes.count
            }
            try OTLPSystemCall.check("cannot fsync \(temporary)") { fsync(output) }
            close(output)
        } catch {
            close(output)
            unlink(temporary)
            throw error
        }
        try OTLPSystemCall.check("cannot rename \(temporary) to \(path)") { rename(temporary, path) }
        return written
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

    private static func makeDirectories(_ directory: String) throws(OTLPWriteError) {
        var path = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            path += "/\(component)"
            if mkdir(path, 0o755) != 0 && errno != EEXIST {
                throw .system("cannot create the spool directory \(path)", errno: errno)
            }
        }
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Whether `offset` is where a record of the file at `path` starts (or its end): its length prefixes
    /// are followed from the start.
    private static func isRecordBoundary(_ offset: Int, in path: String, size: Int) throws(OTLPWriteError) -> Bool {
        guard offset > 0 else { return true }
        guard offset <= size else { return false }
        let descriptor = try OTLPSystemCall.check("cannot open \(path)") { open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) }
        defer { close(descriptor) }
        var position = 0
        while position < offset {
            guard let length = try recordLength(at: position, in: descriptor, size: size, path: path) else { return false }
            position += OTLPLengthPrefix.u32Bytes + length
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
                    try OTLPSystemCall.check("cannot read \(path)") { pread(descriptor, raw.baseAddress! + done, raw.count - done, off_t(offset + done)) }
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
                        try OTLPSystemCall.check("cannot write \(path)") { pwrite(descriptor, raw.baseAddress! + done, raw.count - done, off_t(offset + done)) }
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
