import Foundation
import OTLPWire

/// `send --checkpoint FILE`: how many records of each input file the collector answered, so that a later
/// run skips them. One line per file, `COUNT<TAB>PATH`; the file is replaced atomically (and durably) after
/// every answered record, so a run killed at any moment resends at most the record it was sending.
struct SendCheckpoint {
    /// The checkpoint file, or `nil` without `--checkpoint`.
    let path: String?
    /// Why the checkpoint could not be read (then nothing may be sent).
    private(set) var loadError: String?
    private var answered: [String: Int] = [:]

    init(path: String?) {
        self.path = path
        guard let path else { return }
        guard FileManager.default.fileExists(atPath: path) else { return }
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

    /// Records of `file` answered in earlier runs.
    func answeredRecords(of file: String) -> Int {
        file == "-" ? 0 : answered[file] ?? 0
    }

    /// Records that the first `count` records of `file` are answered (standard input is not resumable).
    mutating func answered(_ count: Int, of file: String) throws(OTLPWriteError) {
        guard let path, file != "-", !file.contains("\n") else { return }
        answered[file] = count
        let text = answered.sorted { $0.key < $1.key }.map { "\($0.value)\t\($0.key)\n" }.joined()
        try OTLPAtomicFile.replace(path, with: Array(text.utf8))
    }
}
