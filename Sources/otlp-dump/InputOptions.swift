import ArgumentParser
import OTLPWire

/// `--framing` values: a framing or `auto`.
enum FramingChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, u32be, varint, jsonl, none

    var framing: OTLPFraming? { self == .auto ? nil : OTLPFraming(rawValue: rawValue) }
}

/// `--input-compression` values: a compression or `auto`.
enum InputCompressionChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, none, gzip, zstd
    case zstdRecords = "zstd-records"

    var compression: OTLPFileCompression? { self == .auto ? nil : OTLPFileCompression(rawValue: rawValue) }
}

/// `--signal` values: a signal or `auto`.
enum SignalChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, traces, logs

    var signal: OTLPSignal? { self == .auto ? nil : OTLPSignal(rawValue: rawValue) }
}

/// Input files and how to read them; shared by every command that reads.
struct InputOptions: ParsableArguments {
    @Argument(help: "Files to read; `-` is standard input.")
    var files: [String] = ["-"]

    @Option(help: "Record framing: auto (from the file name, then the content), u32be, varint, jsonl or none (one bare message).")
    var framing: FramingChoice = .auto

    @Option(
        name: .customLong("input-compression"),
        help:
            "Compression of the input: auto (from the first bytes), none, gzip (the whole file), zstd (the whole file) or zstd-records (each u32be record one zstd frame, as the Collector's file exporter writes)."
    )
    var compression: InputCompressionChoice = .auto

    @Option(
        help:
            "Signal: auto (from the content, then a whole traces/logs token of the file name; content that decides nothing asks for this option), traces or logs."
    )
    var signal: SignalChoice = .auto

    @OptionGroup var limits: LimitOptions

    var readerOptions: OTLPReaderOptions {
        limits.readerOptions(framing: framing.framing, compression: compression.compression, signal: signal.signal)
    }

    /// Reads every file, handing each record to `body` until it returns `false` (a `--limit` reached, the
    /// output gone): then no further record of this or any later file is read. Faults are reported on stderr;
    /// returns the exit code.
    func forEachRecord(_ body: (String, OTLPRecordReader, OTLPRecord) -> Bool) -> ExitCode {
        var status = ExitCode.success
        var stopped = false
        for file in files where !stopped {
            let reader: OTLPRecordReader
            do {
                reader = try OTLPRecordReader(path: file, options: readerOptions)
            } catch {
                Output.diagnostic("\(displayName(file)): \(error)")
                status = error.code == .io ? ExitStatus.ioError : ExitStatus.damagedInput
                continue
            }
            do {
                while let record = try reader.next() {
                    if !body(file, reader, record) {
                        stopped = true
                        break
                    }
                }
            } catch {
                Output.diagnostic("\(displayName(file)): \(error)")
                if status == .success { status = error.code == .io ? ExitStatus.ioError : ExitStatus.damagedInput }
            }
        }
        return status
    }
}

func displayName(_ file: String) -> String { file == "-" ? "<stdin>" : TerminalText.escaped(file) }
