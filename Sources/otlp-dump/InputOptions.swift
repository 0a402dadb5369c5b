import ArgumentParser
import OTLPWire

/// `--framing` values: a framing or `auto`.
enum FramingChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, u32be, varint, jsonl, none

    var framing: OTLPFraming? { self == .auto ? nil : OTLPFraming(rawValue: rawValue) }
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

    @Option(help: "Signal: auto (from the content, then a whole traces/logs token of the file name; content that decides nothing asks for this option), traces or logs.")
    var signal: SignalChoice = .auto

    @Option(name: .customLong("max-frame-bytes"), help: "Largest record accepted, in bytes.")
    var maxFrameBytes: Int = OTLPDecodingOptions.default.maxMessageBytes

    @Option(name: .customLong("max-depth"), help: "Deepest message nesting accepted below the request.")
    var maxDepth: Int = OTLPDecodingOptions.default.maxNestingDepth

    @Option(name: .customLong("max-attributes"), help: "Most attributes accepted on one span, event, link, log record, resource or scope.")
    var maxAttributes: Int = OTLPDecodingOptions.default.maxAttributesPerItem

    @Option(name: .customLong("max-decoded-bytes"), help: "Most memory unpacking one protobuf record may take, as estimated before unpacking.")
    var maxDecodedBytes: Int = OTLPDecodingOptions.default.maxDecodedBytes

    @Option(name: .customLong("max-line-bytes"), help: "Longest JSON line accepted, in bytes.")
    var maxLineBytes: Int = 64 << 20

    @Option(name: .customLong("max-decompressed-bytes"), help: "Most bytes a gzip input may inflate to (0: no limit).")
    var maxDecompressedBytes: Int = 0

    @Option(name: .customLong("max-inflation-ratio"), help: "Most decompressed bytes per compressed byte past the first 16 MiB (stops gzip bombs).")
    var maxInflationRatio: Int = 200

    func validate() throws {
        guard maxFrameBytes > 0 else { throw ValidationError("--max-frame-bytes must be positive") }
        guard maxDepth > 0 else { throw ValidationError("--max-depth must be positive") }
        guard maxAttributes >= 0 else { throw ValidationError("--max-attributes must not be negative") }
        guard maxDecodedBytes > 0 else { throw ValidationError("--max-decoded-bytes must be positive") }
        guard maxLineBytes > 0 else { throw ValidationError("--max-line-bytes must be positive") }
        guard maxDecompressedBytes >= 0 else { throw ValidationError("--max-decompressed-bytes must not be negative") }
        guard maxInflationRatio > 0 else { throw ValidationError("--max-inflation-ratio must be positive") }
    }

    var readerOptions: OTLPReaderOptions {
        OTLPReaderOptions(
            framing: framing.framing, signal: signal.signal,
            decoding: OTLPDecodingOptions(maxMessageBytes: maxFrameBytes, maxNestingDepth: maxDepth, maxAttributesPerItem: maxAttributes,
                maxDecodedBytes: maxDecodedBytes),
            maxLineBytes: maxLineBytes, maxDecompressedBytes: maxDecompressedBytes == 0 ? .max : maxDecompressedBytes,
            maxInflationRatio: maxInflationRatio)
    }

    /// Reads every file, handing each record to `body`. Faults are reported on stderr; returns the exit code.
    func forEachRecord(_ body: (String, OTLPStreamReader, OTLPRecord) -> Bool) -> ExitCode {
        var status = ExitCode.success
        for file in files {
            let reader: OTLPStreamReader
            do {
                reader = try OTLPStreamReader(path: file, options: readerOptions)
            } catch {
                Output.diagnostic("\(displayName(file)): \(error)")
                status = error.kind == .io ? ExitStatus.ioError : ExitStatus.damagedInput
                continue
            }
            do {
                while let record = try reader.next() {
                    if !body(file, reader, record) { break }
                }
            } catch {
                Output.diagnostic("\(displayName(file)): \(error)")
                if status == .success { status = error.kind == .io ? ExitStatus.ioError : ExitStatus.damagedInput }
            }
        }
        return status
    }
}

func displayName(_ file: String) -> String { file == "-" ? "<stdin>" : file }
