import Foundation
import OTLPTelemetry
import OTLPWire

/// `send --checkpoint FILE`: how many records of each input file the collector answered, so that a later
/// run skips them. The file is replaced atomically (and durably) after every answered record, so a run
/// killed at any moment resends at most the record it was sending. A run holds a lock on it (`.NAME.lock`
/// beside it), so two runs never share one checkpoint.
///
/// One line per input file: `COUNT<TAB>DEVICE<TAB>INODE<TAB>BYTES<TAB>FNV1A64<TAB>PATH`, the count and
/// the identity of the file it was counted in (``SendInputIdentity``, taken when the file was opened for
/// sending). A count belongs to that file only:
/// - another file at the path (rotated logs: moved away and replaced, or copied and truncated in place) is
///   sent from its start, with a warning;
/// - a line without the identity (`COUNT<TAB>PATH`, written by an otlp-dump before identities were
///   recorded) cannot tell: its file is sent from the start, with a warning;
/// - a file that ends before the count (cut short in place) is an error (``pastEnd(of:recordsFound:)``),
///   nothing of it skipped silently.
///
/// Standard input (`-`) and other files that are not regular files (FIFOs, devices) are never resumed nor
/// recorded.
struct SendCheckpoint {
    /// What a line holds: the records answered of a file, and which file that was (`nil`: not recorded).
    private struct Entry {
        var count: Int
        var identity: SendInputIdentity?
    }

    /// Where sending a file opened by ``open(_:options:)`` starts.
    private struct Start {
        var answeredRecords: Int
        var warning: String?
    }

    /// Most bytes of a checkpoint file read.
    static let maxBytes = 64 << 20

    /// The checkpoint file, or `nil` without `--checkpoint`.
    let path: String?
    /// Why the checkpoint could not be read (then nothing may be sent).
    private(set) var loadError: String?
    private var entries: [String: Entry] = [:]
    /// The identity of each input opened in this run that is a regular file, as it was when opened.
    private var opened: [String: SendInputIdentity] = [:]
    /// Where each input opened in this run starts.
    private var starts: [String: Start] = [:]
    private var lock: OTLPOutputLock?
    private var warnedAboutNewline = false

    init(path: String?) {
        self.path = path
        guard let path else { return }
        do throws(OTLPWriteError) {
            if let text = try Self.read(path) { parse(text, path: path) }
        } catch {
            loadError = "--checkpoint: \(TerminalText.escaped("\(error)"))"
            return
        }
        guard loadError == nil else { return }
        do throws(OTLPWriteError) {
            lock = try OTLPOutputLock(outputPath: path)
            // Written once before anything is sent: a checkpoint that cannot be written stops the run here.
            try save()
        } catch {
            loadError = "--checkpoint: \(TerminalText.escaped("\(error)"))"
        }
    }

    /// Opens `file` (`-`: standard input) for sending and decides where sending it starts
    /// (``answeredRecords(of:)``), from the identity of the very file opened: a file rotated in between
    /// cannot take another's count.
    mutating func open(_ file: String, options: OTLPReaderOptions) throws(OTLPReadError) -> OTLPRecordReader {
        guard path != nil, file != "-" else { return try OTLPRecordReader(path: file, options: options) }
        let source = try OTLPFileSource(path: file)
        let found: (identity: SendInputIdentity, head: [UInt8])?
        do throws(OTLPWriteError) {
            found = try SendInputIdentity.of(descriptor: source.descriptor, path: file)
        } catch {
            throw OTLPReadError(.io, "\(error.message)\(error.cause.map { ": \($0)" } ?? "")", cause: error.cause)
        }
        opened[file] = found?.identity
        starts[file] = start(of: file, found: found)
        return try OTLPRecordReader(source: source, name: file, options: options)
    }

    /// Records of `file` answered in earlier runs, to skip, and a warning to show when the checkpoint has a
    /// count for the path that does not belong to the file there (it is then sent from its start). `file`
    /// was opened with ``open(_:options:)``.
    func answeredRecords(of file: String) -> (count: Int, warning: String?) {
        guard let start = starts[file] else { return (0, nil) }
        return (start.answeredRecords, start.warning)
    }

    /// The error when `file` ended after `recordsFound` records, before the ones the checkpoint counts as
    /// answered: the file the count was made for, cut short (or rewritten in place with the same first
    /// bytes). An ``OTLPReadError/Code/io`` error (exit status 2); nothing of the file was sent, and its line
    /// stays as it is.
    func pastEnd(of file: String, recordsFound: Int) -> OTLPReadError {
        OTLPReadError(
            .io,
            "--checkpoint \(TerminalText.escaped(path ?? "")) counts \(answeredRecords(of: file).count) records of it answered, but it ends after "
                + "\(recordsFound): cut short or rewritten since; nothing of it was sent (remove its line from the checkpoint to send it from the start)"
        )
    }

    /// Records that the first `count` records of `file` are answered, with the identity `file` had when
    /// opened (standard input and other files that are not regular files are not resumable: not recorded).
    mutating func answered(_ count: Int, of file: String) throws(OTLPWriteError) {
        guard path != nil, file != "-", let identity = opened[file] else { return }
        guard !file.contains("\n") else {
            if !warnedAboutNewline {
                Output.diagnostic(
                    "--checkpoint: \(TerminalText.escaped(file)): a path with a line break cannot be recorded; a re-run sends it again")
                warnedAboutNewline = true
            }
            return
        }
        entries[file] = Entry(count: count, identity: identity)
        try save()
    }

    /// Where sending `file` starts, given the file opened there (`nil`: not a regular file).
    private func start(of file: String, found: (identity: SendInputIdentity, head: [UInt8])?) -> Start {
        guard let entry = entries[file], entry.count > 0 else { return Start(answeredRecords: 0) }
        let name = TerminalText.escaped(file)
        let notIt = "\(name) is not the file the checkpoint was made for"
        let fromStart = "sending it from the start"
        guard let found else {
            return Start(answeredRecords: 0, warning: "\(notIt) (it is not a regular file, which cannot be resumed); \(fromStart)")
        }
        guard let recorded = entry.identity else {
            return Start(
                answeredRecords: 0, warning: "\(notIt) (its line has no file identity, written by an earlier otlp-dump); \(fromStart)")
        }
        let current = found.identity
        if let difference = recorded.difference(device: current.device, inode: current.inode, head: found.head) {
            return Start(answeredRecords: 0, warning: "\(notIt) (\(difference)); \(fromStart)")
        }
        return Start(answeredRecords: entry.count)
    }

    /// The checkpoint's text, or `nil` when there is none yet. Only a regular file is read: a symbolic
    /// link, a FIFO (never waited on), a device or a directory is refused.
    private static func read(_ path: String) throws(OTLPWriteError) -> String? {
        let descriptor: Int32
        do throws(OTLPWriteError) {
            descriptor = try OTLPSystemCall.openRegularFile(path, flags: O_RDONLY, "cannot read \(path)").descriptor
        } catch {
            if error.errno == ENOENT { return nil }
            throw error
        }
        defer { close(descriptor) }
        let (bytes, failure) = OTLPFileSource(descriptor: descriptor).readUpTo(maxBytes + 1)
        if let failure { throw OTLPWriteError(code: .system, message: "cannot read \(path)", cause: failure.cause) }
        guard bytes.count <= maxBytes else { throw .io("\(path) is over \(maxBytes >> 20) MiB: is it a checkpoint file?") }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads the lines of `text`, the checkpoint at `path`; sets ``loadError`` at the first that is not one.
    private mutating func parse(_ text: String, path: String) {
        for (number, line) in text.split(separator: "\n").enumerated() {
            let fields = line.split(separator: "\t", maxSplits: 5, omittingEmptySubsequences: false)
            if fields.count == 6, let count = Int(fields[0]), count >= 0,
                let identity = SendInputIdentity(device: fields[1], inode: fields[2], fingerprintBytes: fields[3], fingerprint: fields[4])
            {
                entries[String(fields[5])] = Entry(count: count, identity: identity)
                continue
            }
            let old = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            guard old.count == 2, let count = Int(old[0]), count >= 0 else {
                loadError =
                    "--checkpoint: \(TerminalText.escaped(path)) line \(number + 1) is not COUNT<TAB>DEVICE<TAB>INODE<TAB>BYTES<TAB>FNV1A64<TAB>PATH: is it a checkpoint file?"
                return
            }
            entries[String(old[1])] = Entry(count: count, identity: nil)
        }
    }

    private func save() throws(OTLPWriteError) {
        guard let path else { return }
        // A line without an identity (an earlier otlp-dump's) is kept as it is until its file is sent again.
        let text = entries.sorted { $0.key < $1.key }.map { name, entry in
            "\(entry.count)\t" + (entry.identity.map { "\($0.fields)\t" } ?? "") + "\(name)\n"
        }.joined()
        try OTLPAtomicFile.replace(path, with: Array(text.utf8))
    }
}
