import ArgumentParser
import OTLPWire

struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Rewrite a file in another framing, gzip- or zstd-compressed or not.",
        discussion: """
            Every record is decoded and encoded again (JSON lines in are parsed and re-encoded through the \
            protobuf-c path). On damaged input, the records before the fault are written, the error goes to \
            stderr and the exit status is 1. With --to jsonl, a record whose JSON line would be longer than \
            --max-line-bytes (what readers accept: 8 MiB by default) is not written either: the records before \
            it are, and the exit status is 1. With --zstd, each record is one zstd frame behind a 4-byte big-endian \
            length of the frame (--to u32be: protobuf; --to jsonl: OTLP JSON without newlines), the layout the \
            OpenTelemetry Collector's file exporter writes with `compression: zstd`. An output that is the input (same file by device and inode: same \
            path, hard or symbolic link, or a redirection) is refused as a usage error (64). The limit options \
            are those of the other commands.
            """
    )

    @Argument(help: "Input file, `-` for standard input.")
    var input: String

    @Argument(help: "Output file, `-` for standard output. A symbolic link is followed, and stderr says to which file.")
    var output: String

    @Option(help: "Output framing: u32be, varint, jsonl or none (a single message).")
    var to: FramingChoice

    @Flag(help: "gzip-compress the output.")
    var gzip = false

    @Option(
        name: .customLong("gzip-level"),
        help: "level of --gzip (zlib's scale): 1 (fastest) to 9 (smallest); default \(OTLPGzip.defaultLevel).")
    var gzipLevel: Int?

    @Flag(help: "Compress each record into one zstd frame, as the Collector's file exporter does (--to u32be or jsonl).")
    var zstd = false

    @Option(help: "Input framing (default: detected).")
    var from: FramingChoice = .auto

    @Option(
        name: .customLong("input-compression"),
        help: "Input compression: auto (detected), none, gzip, zstd (the whole file) or zstd-records (each u32be record one zstd frame).")
    var inputCompression: InputCompressionChoice = .auto

    @Option(help: "Signal of the input (default: detected).")
    var signal: SignalChoice = .auto

    @OptionGroup var limits: LimitOptions

    func validate() throws {
        guard to != .auto else { throw ValidationError("--to needs a framing: u32be, varint, jsonl or none") }
        guard !zstd || to == .u32be || to == .jsonl else {
            throw ValidationError("--zstd writes the Collector's zstd records: use it with --to u32be or --to jsonl")
        }
        guard !(zstd && gzip) else { throw ValidationError("--zstd and --gzip are two compressions: give one") }
        try inputCompression.check(framing: from, option: "--from")
        if let gzipLevel {
            guard gzip else { throw ValidationError("--gzip-level sets the level of --gzip: use them together") }
            guard OTLPGzip.levelRange.contains(gzipLevel) else {
                throw ValidationError(
                    "--gzip-level must be between \(OTLPGzip.levelRange.lowerBound) and \(OTLPGzip.levelRange.upperBound), got \(gzipLevel)"
                )
            }
        }
        try OutputCollision.check(output: output, inputs: [input])
    }

    func run() throws {
        let options = limits.readerOptions(framing: from.framing, compression: inputCompression.compression, signal: signal.signal)
        let reader: OTLPRecordReader
        do {
            reader = try OTLPRecordReader(path: input, options: options)
        } catch {
            Output.diagnostic("\(displayName(input)): \(error)")
            throw error.code == .io ? ExitStatus.ioError : ExitStatus.damagedInput
        }
        if to == .none { return try convertToOneMessage(reader) }
        let writer = try openWriter()
        var status = ExitCode.success
        var writing = true
        /// A closed pipe on standard output stops the output quietly, as `print` does; any other write error is exit 2.
        func writeFailed(_ error: OTLPWriteError) {
            writing = false
            guard !(output == "-" && Output.isClosedPipe(error)) else { return }
            Output.diagnostic(Output.writeFailure(error, path: output == "-" ? "<stdout>" : output))
            status = ExitStatus.ioError
        }
        do {
            while writing, let record = try reader.next() {
                do {
                    if to == .jsonl {
                        // Written only if readers with these limits can read the line back.
                        let line = Self.jsonLine(record.payload)
                        guard line.count <= options.maxLineBytes else {
                            Output.diagnostic(
                                "\(displayName(input)): record \(record.index): its JSON line would be \(line.count) bytes, over the \(options.maxLineBytes) readers accept (--max-line-bytes); it and the records after it are not written"
                            )
                            status = ExitStatus.damagedInput
                            break
                        }
                        try line.withUnsafeBytes { bytes in Result { () throws(OTLPWriteError) in try writer.writeEncoded(bytes) } }.get()
                    } else {
                        try writer.write(record.payload)
                    }
                } catch {
                    writeFailed(error)
                }
            }
        } catch {
            Output.diagnostic("\(displayName(input)): \(error)")
            status = ExitStatus.damagedInput
        }
        if writing {
            do {
                try writer.close()
            } catch {
                writeFailed(error)
            }
        }
        if status != .success { throw status }
    }

    /// The output, opened (created or truncated) for writing `--to`'s framing.
    private func openWriter() throws -> OTLPRecordWriter {
        do {
            // The user named this output: a symbolic link is followed (resolved once, here) and said so.
            let sink = try OTLPFileSink(path: output, followSymlink: true)
            if let target = sink.symlinkTarget { Output.diagnostic("\(output) is a symbolic link: writing to \(target)") }
            return OTLPRecordWriter(
                sink: sink, framing: to.framing!, gzip: gzip, zstd: zstd, compressionLevel: Int32(gzipLevel ?? OTLPGzip.defaultLevel))
        } catch {
            Output.diagnostic("\(output): \(error)")
            throw ExitStatus.ioError
        }
    }

    /// `--to none`: one bare message. The input is read to its end before the output is opened, so that an
    /// input of several records (a usage error: exit 64) leaves the output as it was. A damaged record after
    /// the first still has the first written (what was readable before the fault is delivered), exit 1.
    private func convertToOneMessage(_ reader: OTLPRecordReader) throws {
        var message: OTLPPayload?
        var status = ExitCode.success
        do {
            while let record = try reader.next() {
                guard message == nil else {
                    Output.diagnostic(
                        "--to none holds one message; \(displayName(input)) has more records (use u32be, varint or jsonl): nothing written")
                    throw ExitCode.validationFailure
                }
                message = record.payload
            }
        } catch let error as OTLPReadError {
            Output.diagnostic("\(displayName(input)): \(error)")
            status = ExitStatus.damagedInput
        }
        let writer = try openWriter()
        do {
            if let message { try writer.write(message) }
            try writer.close()
        } catch {
            if !(output == "-" && Output.isClosedPipe(error)) {
                Output.diagnostic(Output.writeFailure(error, path: output == "-" ? "<stdout>" : output))
                status = ExitStatus.ioError
            }
        }
        if status != .success { throw status }
    }

    /// The OTLP/JSON line of `payload` (without its newline).
    static func jsonLine(_ payload: OTLPPayload) -> [UInt8] {
        OTLPJSONEncoder().encode(payload)
    }
}
