import Foundation
package import OTLPWire

/// Appends to a file and rotates it by size and age, keeping `maxFiles` files: the current file `path` and
/// rotated ones named as ``OTLPRotatedFileName`` says (`traces.u32be.bin` rotates to `traces.1.u32be.bin`,
/// `traces.2.u32be.bin`…, where 1 is the newest, as logrotate numbers them).
///
/// Each write (one batch: whole records) goes to one file, so no record is split across files, and comes
/// with its item count, which the sink keeps per file in memory: files are never read back. When more
/// than `maxFiles` files would be kept, the oldest one is deleted; for a file this sink wrote, exactly the items
/// written into it are counted as dropped (`retention`), so the dropped count never exceeds what was written.
///
/// Files left by earlier runs count toward `maxFiles`: when the sink first opens, the regular files named
/// `STEM.N.EXT` (`N` without leading zeros) and a regular file at `path` (moved to `STEM.1.EXT`) join the
/// rotated files, oldest (highest `N`) first to be deleted. Their items were counted by the run that wrote
/// them, so deleting them adds nothing to this run's counts. The sink renames and deletes nothing else:
/// - the current file is created with `O_EXCL | O_NOFOLLOW`; a symbolic link at `path` is refused (`ELOOP`),
///   never followed;
/// - anything at a rotated name that is not a regular file (a symbolic link, a folder), and any other name,
///   is left alone: its number is skipped;
/// - renames use `RENAME_NOREPLACE`, so nothing is ever renamed over; a file only moves to a higher number;
/// - a file that someone else moved, removed, replaced or resized since the sink took it (device, inode and
///   size are compared) is forgotten: reported, never deleted, its items not counted as dropped.
///
/// While it is open the sink holds an advisory lock on `path` (see `OTLPOutputLock`: `DIR/.NAME.lock`), so a
/// second sink on the same path, in this process or another, fails to open with `EWOULDBLOCK` and a message
/// naming the holder; ``close()`` (which `OTLPTelemetry.shutdown()` calls) releases it. A FIFO or device at `path` is written as it is, without lock or rotation. After a
/// failed write the file is closed and opened again on the next write.
package final class OTLPRotatingFileSink: OTLPItemCountingSink, @unchecked Sendable {
    /// The current file's path; rotated files are named by ``names``.
    package let path: String
    /// The names of the rotated files (`traces.1.u32be.bin` for `traces.u32be.bin`).
    let names: OTLPRotatedFileName
    /// When files rotate and how many are kept (as clamped into their ranges).
    package let rotation: OTLPTelemetryConfiguration.Rotation
    /// The signal of the items written, for counting those a deleted file held.
    private let signal: OTLPSignal
    private let counters: OTLPTelemetryCounters
    private let clock: any OTLPClock
    private let diagnostics: @Sendable (String) -> Void
    private let lock = NSLock()
    private var outputLock: OTLPOutputLock?
    private var file: OTLPFileSink?
    /// The current file, once this sink has created it.
    private var current: OwnedFile?
    /// Files this sink created and rotated, oldest first.
    private var rotated: [OwnedFile] = []
    /// Whether the files earlier runs left have been taken into ``rotated`` (when the sink first opens).
    private var tookEarlierFiles = false
    /// `path` is a FIFO or a device: written as it is.
    private var isSpecialFile = false
    /// The current file ends in a torn record (a failed write that could not be rolled back).
    private var mustRotate = false

    /// A file this sink keeps: one it created, with what it wrote into it, or one an earlier run left.
    struct OwnedFile {
        var path: String
        var status: OTLPFileStatus
        var items = 0
        var bytes = 0
        var createdAtUnixNano: UInt64
        /// Left by an earlier run: its items are unknown here (that run counted them).
        var isFromEarlierRun = false

        /// Whether `found` (what is at the path now) is still this file as this sink left it: same device
        /// and inode (a number the file system may reuse) and exactly the bytes written.
        func isUnchanged(_ found: OTLPFileStatus?) -> Bool {
            guard let found else { return false }
            return found.isSameFile(as: status) && found.sizeBytes == Int64(bytes)
        }
    }

    /// Nothing is opened here: ``open()`` opens and locks now, otherwise the first write does.
    package init(
        path: String, rotation: OTLPTelemetryConfiguration.Rotation, signal: OTLPSignal, counters: OTLPTelemetryCounters,
        clock: any OTLPClock = OTLPSystemClock(), diagnostics: @escaping @Sendable (String) -> Void = OTLPDiagnostics.standardError
    ) {
        self.path = path
        self.names = OTLPRotatedFileName(path: path)
        self.rotation = rotation
        self.signal = signal
        self.counters = counters
        self.clock = clock
        self.diagnostics = diagnostics
    }

    /// Takes the lock and opens the current file now, if not open yet.
    ///
    /// - Throws: `OTLPWriteError.system(_:errno:)`: `EWOULDBLOCK` when another pipeline writes `path`
    ///   (the message names it), `ELOOP` for a symbolic link, or whatever `open` or `rename` said.
    package func open() throws(OTLPWriteError) {
        lock.lock()
        defer { lock.unlock() }
        if file == nil { try openFile() }
    }

    /// Closes the current file and releases the lock on `path`, so another pipeline may take it. A later
    /// write opens and locks again, continuing the same files and counts.
    package func close() {
        lock.lock()
        defer { lock.unlock() }
        file = nil
        outputLock = nil
    }

    /// ``close()``, unless a write holds the sink past `deadline` (a FIFO nobody reads, a hung file system):
    /// returns whether it closed.
    package func close(before deadline: ContinuousClock.Instant) -> Bool {
        let (seconds, attoseconds) = (deadline - .now).components
        guard lock.lock(before: Date(timeIntervalSinceNow: max(0, Double(seconds) + Double(attoseconds) / 1e18))) else { return false }
        defer { lock.unlock() }
        file = nil
        outputLock = nil
        return true
    }

    /// Refused: this sink must know how many items each write holds (``write(_:itemCount:)``).
    package func write(_ bytes: UnsafeRawBufferPointer) throws(OTLPWriteError) {
        throw .io("\(path): OTLPRotatingFileSink needs each write's item count (write(_:itemCount:)) to count what retention deletes")
    }

    /// Writes one batch of whole records holding `itemCount` items, rotating first when the current file
    /// would pass its size or age limit.
    package func write(_ bytes: UnsafeRawBufferPointer, itemCount: Int) throws(OTLPWriteError) {
        try write(bytes, itemCount: itemCount, announcing: { _ in }, announces: false)
    }

    /// ``write(_:itemCount:)``, calling `beforeWriting` with the file, its size before the write and the
    /// bytes' CRC-32, right before the write (after any rotation): the journal's write-ahead intent. Nothing
    /// is announced for a FIFO or device.
    package func write(
        _ bytes: UnsafeRawBufferPointer, itemCount: Int, beforeWriting: (OTLPExportDestination) -> Void
    ) throws(OTLPWriteError) {
        try write(bytes, itemCount: itemCount, announcing: beforeWriting, announces: true)
    }

    private func write(
        _ bytes: UnsafeRawBufferPointer, itemCount: Int, announcing: (OTLPExportDestination) -> Void, announces: Bool
    ) throws(OTLPWriteError) {
        guard itemCount >= 0 else { throw .io("\(path): a write cannot hold \(itemCount) items") }
        lock.lock()
        defer { lock.unlock() }
        if file == nil { try openFile() }
        if !isSpecialFile && needsRotation(adding: bytes.count) {
            rotate()
            if file == nil { try openFile() }
        }
        if announces, !isSpecialFile, let current, !bytes.isEmpty {
            announcing(
                OTLPExportDestination(
                    kind: .file, path: path, device: current.status.device, inode: current.status.inode, offsetBytes: current.bytes,
                    lengthBytes: bytes.count, checksum: OTLPCRC32.checksum(bytes)))
        }
        do throws(OTLPWriteError) {
            try file!.write(bytes)
        } catch {
            file = nil
            if let current, let found = try? OTLPFileStatus.of(path: path), found.isSameFile(as: current.status),
                found.sizeBytes > Int64(current.bytes)
            {
                // The roll-back failed: the file ends in a torn record of this sink's. It stays this sink's
                // (its complete records are counted), and the next batch starts a new file, never after it.
                self.current?.bytes = Int(found.sizeBytes)
                mustRotate = true
            }
            throw error
        }
        current?.items += itemCount
        current?.bytes += bytes.count
    }

    package func sync() throws(OTLPWriteError) {
        lock.lock()
        defer { lock.unlock() }
        try file?.sync()
    }

    /// The files this sink keeps, newest first: the current file, then the rotated ones (earlier runs'
    /// included).
    package var files: [String] {
        ownedFiles.map(\.path)
    }

    /// The files this sink keeps, newest first, with the items and bytes written into each.
    var ownedFiles: [OwnedFile] {
        lock.withLock { (current.map { [$0] } ?? []) + rotated.reversed() }
    }

    private func openFile() throws(OTLPWriteError) {
        guard !path.isEmpty, !path.hasSuffix("/") else {
            throw .system("cannot open \"\(path)\": not a file name", errno: path.isEmpty ? ENOENT : EISDIR)
        }
        if let existing = try OTLPFileStatus.of(path: path), !existing.isRegularFile, !existing.isSymbolicLink {
            return try openSpecialFile()
        }
        isSpecialFile = false
        // A file output's folder is made when missing (regression: the README's first example wrote nothing,
        // every batch dropped write_failed, because telemetry/ did not exist yet).
        try OTLPSystemCall.makeParentDirectories(of: path)
        if outputLock == nil { outputLock = try OTLPOutputLock(outputPath: path) }
        if !tookEarlierFiles {
            try takeEarlierFiles()
            tookEarlierFiles = true
        }
        if let current {
            // Reopen the file this sink created, if it is still the one at the path.
            if current.isUnchanged(try OTLPFileStatus.of(path: path)) {
                file = try OTLPFileSink(path: path, openFlags: O_APPEND)
                return
            }
            diagnostics(
                "OTLPWire file output: \(path), created by this sink with \(current.items) items, was changed by someone else (moved, removed, replaced or resized); left alone"
            )
            self.current = nil
        }
        for _ in 0..<16 {
            do throws(OTLPWriteError) {
                let sink = try OTLPFileSink(path: path, openFlags: O_CREAT | O_EXCL | O_APPEND)
                file = sink
                current = OwnedFile(path: path, status: sink.status!, createdAtUnixNano: clock.nowUnixNano())
                return
            } catch {
                guard error.errno == EEXIST else { throw error }
            }
            // Something this sink did not create is at the path.
            guard let found = try OTLPFileStatus.of(path: path) else { continue }
            if found.isSymbolicLink {
                throw .system(
                    "cannot open \(path): it is a symbolic link, which is not followed (give the path of the file it points to)",
                    errno: ELOOP)
            }
            if !found.isRegularFile { return try openSpecialFile() }
            // An earlier run's file: an empty one holds nothing and is removed, otherwise it becomes the newest
            // rotated file (counted toward maxFiles).
            if found.sizeBytes == 0 {
                try OTLPSystemCall.check("cannot remove the empty \(path) an earlier run left") { unlink(path) }
                continue
            }
            try shift(OwnedFile(path: path, status: found, bytes: Int(found.sizeBytes), createdAtUnixNano: 0, isFromEarlierRun: true))
        }
        throw .system("cannot create \(path): something else keeps creating it", errno: EEXIST)
    }

    private func openSpecialFile() throws(OTLPWriteError) {
        // A FIFO without a reader fails now (and is tried again at the next batch): the app never waits here.
        file = try OTLPFileSink(path: path, openFlags: O_APPEND, neverWaiting: true)
        isSpecialFile = true
        outputLock = nil
    }

    /// Takes the rotated files earlier runs left (regular files named `STEM.N.EXT`) into ``rotated``, oldest
    /// (highest `N`) first, and deletes the oldest beyond `maxFiles` (counting the new current file).
    private func takeEarlierFiles() throws(OTLPWriteError) {
        var found: [(index: Int, file: OwnedFile)] = []
        for name in try OTLPSystemCall.names(inDirectory: names.directory.isEmpty ? "." : names.directory) {
            guard let index = names.index(ofName: name) else { continue }
            let filePath = names.directory + name
            // Only regular files are taken: a symbolic link or a folder at a rotated name is left alone.
            guard let status = try? OTLPFileStatus.of(path: filePath), status.isRegularFile else { continue }
            found.append(
                (
                    index,
                    OwnedFile(path: filePath, status: status, bytes: Int(status.sizeBytes), createdAtUnixNano: 0, isFromEarlierRun: true)
                ))
        }
        let earlier = found.sorted { $0.index > $1.index }.map(\.file)
        rotated = Array(deleteOldest(of: (rotated + earlier).reversed(), keeping: max(rotation.maxFiles, 1) - 1).reversed())
    }

    /// The number in a kept file's name (0 for the current file).
    private func number(of file: OwnedFile) -> Int {
        guard file.path.hasPrefix(names.directory) else { return 0 }
        return names.index(ofName: String(file.path.dropFirst(names.directory.count))) ?? 0
    }

    /// Makes `finished`, the file at `path`, the newest rotated file: deletes the oldest files beyond
    /// `maxFiles`, then moves each kept file to its new number, oldest first, `finished` last (to 1, or the
    /// first number after those taken by something that is not the sink's). A file only moves up, and never
    /// over anything (`RENAME_NOREPLACE`). Throws when `finished` cannot be moved: it stays at `path`.
    private func shift(_ finished: OwnedFile) throws(OTLPWriteError) {
        let kept = deleteOldest(of: [finished] + rotated.reversed(), keeping: max(rotation.maxFiles, 1) - 1)
        let finishedKept = kept.first?.path == path
        rotated = Array(kept.dropFirst(finishedKept ? 1 : 0).reversed())
        let keptPaths = Set(kept.map(\.path))
        var targets: [Int] = []
        var next = 1
        for file in kept {
            var candidate = max(next, number(of: file))
            // A number taken by something that is not a kept file (a symbolic link, someone else's file) is skipped.
            while !keptPaths.contains(names.path(index: candidate)), (try? OTLPFileStatus.of(path: names.path(index: candidate))) != nil {
                let (following, overflow) = candidate.addingReportingOverflow(1)
                guard !overflow else {
                    throw .system("cannot rotate \(path): no number is free after \(names.path(index: candidate))", errno: EEXIST)
                }
                candidate = following
            }
            targets.append(candidate)
            next = candidate &+ 1
        }
        // Oldest first: each file moves to a number above its own, which the older ones have left.
        var moved: [OwnedFile] = []
        for (position, var file) in rotated.enumerated() {
            let target = names.path(index: targets[kept.count - 1 - position])
            if file.path != target {
                guard file.isUnchanged(try? OTLPFileStatus.of(path: file.path)) else {
                    diagnostics(
                        "OTLPWire file output: \(file.path) was changed by someone else (moved, removed, replaced or resized); left alone, not counted"
                    )
                    continue
                }
                do throws(OTLPWriteError) {
                    try OTLPSystemCall.renameWithoutReplacing(file.path, to: target)
                    file.path = target
                } catch {
                    diagnostics("OTLPWire file output: \(error); \(file.path) keeps its name")
                }
            }
            moved.append(file)
        }
        rotated = moved
        guard finishedKept else { return }
        var newest = finished
        newest.path = names.path(index: targets[0])
        try OTLPSystemCall.renameWithoutReplacing(path, to: newest.path)
        rotated.append(newest)
    }

    /// Returns `newestFirst` without the oldest files beyond `count`, which are deleted: for a file this sink
    /// wrote, exactly the items written into it are counted as dropped (`retention`). A file someone else
    /// changed is left alone and forgotten; one that cannot be deleted is kept, to be deleted at the next rotation.
    private func deleteOldest(of newestFirst: [OwnedFile], keeping count: Int) -> [OwnedFile] {
        var kept: [OwnedFile] = []
        for (position, old) in newestFirst.enumerated() {
            guard position >= count else {
                kept.append(old)
                continue
            }
            let whose = old.isFromEarlierRun ? "left by an earlier run" : "created by this sink with \(old.items) items"
            do throws(OTLPWriteError) {
                guard old.isUnchanged(try OTLPFileStatus.of(path: old.path)) else {
                    diagnostics(
                        "OTLPWire file output: \(old.path), \(whose), was changed by someone else (moved, removed, replaced or resized); left alone, not counted"
                    )
                    continue
                }
                try OTLPSystemCall.check("cannot delete \(old.path)") { unlink(old.path) }
                if !old.isFromEarlierRun { counters.dropped(old.items, signal, .retention) }
            } catch {
                diagnostics("OTLPWire file output: \(error); kept, deleted at the next rotation")
                kept.append(old)
            }
        }
        return kept
    }

    private func needsRotation(adding count: Int) -> Bool {
        guard let current, current.bytes > 0 else { return false }
        if mustRotate { return true }
        if rotation.maxFileBytes > 0 {
            let (total, overflow) = current.bytes.addingReportingOverflow(count)
            if overflow || total > rotation.maxFileBytes { return true }
        }
        if rotation.maxAgeSeconds > 0 && Double(clock.nowUnixNano() &- current.createdAtUnixNano) / 1e9 >= rotation.maxAgeSeconds {
            return true
        }
        return false
    }

    /// Makes the current file the newest rotated one and deletes the oldest files beyond `maxFiles`. When the
    /// file cannot be moved, the error is reported and writing goes on into the current file (nothing is lost).
    private func rotate() {
        guard let finished = current else { return }
        do throws(OTLPWriteError) {
            guard finished.isUnchanged(try OTLPFileStatus.of(path: path)) else {
                file = nil  // someone else changed it: openFile reports it and starts a new file
                mustRotate = false
                return
            }
            try shift(finished)
        } catch {
            if (try? OTLPFileStatus.of(path: path))?.isSameFile(as: finished.status) == true {
                diagnostics("OTLPWire file output: cannot rotate: \(error); writing on to \(path)")
                return
            }
            diagnostics("OTLPWire file output: cannot rotate: \(error)")
        }
        file = nil
        current = nil
        mustRotate = false
    }
}
