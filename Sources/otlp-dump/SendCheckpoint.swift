import Foundation
import OTLPTelemetry
import OTLPWire

/// `send --checkpoint FILE`: how many records of each input file the collector answered, so that a later
/// run skips them. One line per file, `COUNT<TAB>PATH`; the file is replaced atomically (and durably) after
/// every answered record, so a run killed at any moment resends at most the record it was sending. A run holds
/// a lock on it (`.NAME.lock` beside it), so two runs never share one checkpoint.
struct SendCheckpoint {
    /// The checkpoint file, or `nil` without `--checkpoint`.
    let path: String?
    /// Why the checkpoint could not be read (then nothing may be sent).
    private(set) var loadError: String?
    private var answered: [String: Int] = [:]
    private var lock: OTLPOutputLock?
    private var warnedAboutNewline = false

    init(path: String?) {
        self.path = path
        guard let path else { return }
        var info = stat()
        if lstat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
            // It is replaced by renaming over it: never a device, a directory or a symbolic link.
            loadError = "--checkpoint: \(TerminalText.escaped(path)) is not a regular file"
            return
        }
        if FileManager.default.fileExists(atPath: path) {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                loadError = "--checkpoint: cannot read \(TerminalText.escaped(path))"
                return
            }
            for (number, line) in text.split(separator: "\n").enumerated() {
                let fields = line.split(separator: "\t", maxSplits: 1)
                guard fields.count == 2, let count = Int(fields[0]), count >= 0 else {
                    loadError = "--checkpoint: \(TerminalText.escaped(path)) line \(number + 1) is not COUNT<TAB>PATH: is it a checkpoint file?"
                    return
                }
                answered[String(fields[1])] = count
            }
        }
        do throws(OTLPWriteError) {
            lock = try OTLPOutputLock(outputPath: path)
            // Written once before anything is sent: a checkpoint that cannot be written stops the run here.
            try save()
        } catch {
            loadError = "--checkpoint: \(TerminalText.escaped("\(error)"))"
        }
    }

    /// Records of `file` answered in earlier runs.
    func answeredRecords(of file: String) -> Int {
        file == "-" ? 0 : answered[file] ?? 0
    }

    /// Records that the first `count` records of `file` are answered (standard input is not resumable).
    mutating func answered(_ count: Int, of file: String) throws(OTLPWriteError) {
        guard path != nil, file != "-" else { return }
        guard !file.contains("\n") else {
            if !warnedAboutNewline {
                Output.diagnostic("--checkpoint: \(TerminalText.escaped(file)): a path with a line break cannot be recorded; a re-run sends it again")
                warnedAboutNewline = true
            }
            return
        }
        answered[file] = count
        try save()
    }

    private func save() throws(OTLPWriteError) {
        guard let path else { return }
        let text = answered.sorted { $0.key < $1.key }.map { "\($0.value)\t\($0.key)\n" }.joined()
        try OTLPAtomicFile.replace(path, with: Array(text.utf8))
    }
}
