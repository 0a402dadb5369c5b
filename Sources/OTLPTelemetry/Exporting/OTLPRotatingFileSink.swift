import Foundation
package import OTLPWire

/// Appends to a file and rotates it by size and age, keeping `maxFiles` files: the current file `path`
/// and rotated ones `path.N`, where a higher `N` is newer.
///
/// Each write (one batch: whole records) goes to one file, so no record is split across files, and comes
/// with its item count, which the sink keeps per file in memory: files are never read back. When more
/// than `maxFiles` files would be kept, the oldest one this sink created is deleted and exactly the items
/// written into it are counted as dropped (`retention`), so the dropped count never exceeds what was written.
///
/// The sink only renames and deletes files it created itself:
/// - the current file is created with `O_EXCL | O_NOFOLLOW`; a symbolic link at `path` is refused (`ELOOP`),
///   never followed;
/// - a file already at `path` (an earlier run's) is moved aside to a free `path.N` and left alone;
/// - rotated numbers continue after the highest `path.N` present when the sink first opens, and renames use
///   `RENAME_NOREPLACE`: an earlier run's `path.1`, `path.2`… are never renamed over or deleted (they are
///   not counted against `maxFiles`: removing them is up to the user);
/// - a file it created that someone else moved, removed, replaced or resized (device, inode and size are
///   compared with what it wrote) is forgotten: reported, never deleted, its items not counted as dropped.
///
/// While it is open the sink holds an advisory lock on `path` (see `OTLPOutputLock`: `DIR/.NAME.lock`), so a
/// second sink on the same path, in this process or another, fails to open with `EWOULDBLOCK` and a message
/// naming the holder; ``close()`` (which `OTLPTelemetry.shutdown()` calls) releases it. A FIFO or device at `path` is written as it is, without lock or rotation. After a
/// failed write the file is closed and opened again on the next write.
package final class OTLPRotatingFileSink: OTLPItemCountingSink, @unchecked Sendable {
    /// The current file's path; rotated files are `path.N`.
    package let path: String
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
    /// The number the next rotated file gets; found when the sink first opens.
    private var nextIndex: Int?
    /// `path` is a FIFO or a device: written as it is.
    private var isSpecialFile = false
    /// The current file ends in a torn record (a failed write that could not be rolled back).
    private var mustRotate = false

    /// A file this sink created, with what it wrote into it.
    struct OwnedFile {
        var path: String
        var status: OTLPFileStatus
        var items = 0
        var bytes = 0
        var createdAtUnixNano: UInt64

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
        guard itemCount >= 0 else { throw .io("\(path): a write cannot hold \(itemCount) items") }
        lock.lock()
        defer { lock.unlock() }
        if file == nil { try openFile() }
        if !isSpecialFile && needsRotation(adding: bytes.count) {
            rotate()
            if file == nil { try openFile() }
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

    /// The files this sink created and keeps, newest first: the current file, then the rotated ones.
    package var files: [String] {
        ownedFiles.map(\.path)
    }

    /// The files this sink created and keeps, newest first, with the items and bytes written into each.
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
        if nextIndex == nil { nextIndex = try Self.firstFreeIndex(after: path) }
        if let current {
            // Reopen the file this sink created, if it is still the one at the path.
            if current.isUnchanged(try OTLPFileStatus.of(path: path)) {
                file = try OTLPFileSink(path: path, openFlags: O_APPEND)
                return
            }
            diagnostics(
                "OTLP rotating sink: \(path), created by this sink with \(current.items) items, was changed by someone else (moved, removed, replaced or resized); left alone"
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
            _ = try moveAside()  // an earlier run's file: kept, under a new name, never deleted
        }
        throw .system("cannot create \(path): something else keeps creating it", errno: EEXIST)
    }

    private func openSpecialFile() throws(OTLPWriteError) {
        // A FIFO without a reader fails now (and is tried again at the next batch): the app never waits here.
        file = try OTLPFileSink(path: path, openFlags: O_APPEND, neverWaiting: true)
        isSpecialFile = true
        outputLock = nil
    }

    /// Renames `path` to the next free `path.N` (never over an existing file) and returns that name.
    private func moveAside() throws(OTLPWriteError) -> String {
        while true {
            let index = nextIndex ?? 1
            let (next, overflow) = index.addingReportingOverflow(1)
            guard !overflow else { throw .system("cannot rotate \(path): no number is free after \(path).\(index)", errno: EEXIST) }
            let target = "\(path).\(index)"
            do throws(OTLPWriteError) {
                try OTLPSystemCall.renameWithoutReplacing(path, to: target)
                nextIndex = next
                return target
            } catch {
                guard error.errno == EEXIST else { throw error }
                nextIndex = next
            }
        }
    }

    /// One more than the highest `N` of the `path.N` files present (1 when there are none).
    static func firstFreeIndex(after path: String) throws(OTLPWriteError) -> Int {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? "."
        let prefix = (slash.map { String(path[path.index(after: $0)...]) } ?? path) + "."
        var highest = 0
        for name in try OTLPSystemCall.names(inDirectory: directory) where name.hasPrefix(prefix) {
            let suffix = name.dropFirst(prefix.count)
            guard !suffix.isEmpty, suffix.allSatisfy({ $0.isASCII && $0.isNumber }) else { continue }
            // A number past Int.max cannot collide with a name this sink makes.
            if let number = Int(suffix) { highest = max(highest, number) }
        }
        let (first, overflow) = highest.addingReportingOverflow(1)
        guard !overflow else { throw .system("cannot rotate \(path): no number is free after \(path).\(highest)", errno: EEXIST) }
        return first
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

    /// Moves the current file to the next `path.N` and deletes the oldest files beyond `maxFiles`. When the
    /// file cannot be moved, the error is reported and writing goes on into the current file (nothing is lost).
    private func rotate() {
        guard var finished = current else { return }
        do throws(OTLPWriteError) {
            guard finished.isUnchanged(try OTLPFileStatus.of(path: path)) else {
                file = nil  // someone else changed it: openFile reports it and starts a new file
                mustRotate = false
                return
            }
            finished.path = try moveAside()
        } catch {
            diagnostics("OTLP rotating sink: cannot rotate: \(error); writing on to \(path)")
            return
        }
        file = nil
        current = nil
        mustRotate = false
        rotated.append(finished)
        deleteBeyondRetention()
    }

    /// Deletes the oldest rotated files this sink created while more than `maxFiles` files are kept,
    /// counting exactly the items written into each as dropped (`retention`).
    private func deleteBeyondRetention() {
        let keptRotated = max(rotation.maxFiles, 1) - 1
        let excess = rotated.count - keptRotated
        guard excess > 0 else { return }
        var survivors: [OwnedFile] = []
        for (index, old) in rotated.enumerated() {
            guard index < excess else {
                survivors.append(old)
                continue
            }
            do throws(OTLPWriteError) {
                guard old.isUnchanged(try OTLPFileStatus.of(path: old.path)) else {
                    diagnostics(
                        "OTLP rotating sink: \(old.path), created by this sink with \(old.items) items, was changed by someone else (moved, removed, replaced or resized); left alone, not counted"
                    )
                    continue
                }
                try OTLPSystemCall.check("cannot delete \(old.path)") { unlink(old.path) }
                counters.dropped(old.items, signal, .retention)
            } catch {
                diagnostics("OTLP rotating sink: \(error); kept, deleted at the next rotation")
                survivors.append(old)
            }
        }
        rotated = survivors
    }
}
