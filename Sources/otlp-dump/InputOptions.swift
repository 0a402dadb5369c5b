import ArgumentParser
import OTLPTelemetry
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

    /// Refuses a framing zstd records cannot have: each is a u32be record (regression: `--framing jsonl` or
    /// `varint` with `zstd-records` was read as u32be without a word).
    func check(framing: FramingChoice, option: String = "--framing") throws {
        if self == .zstdRecords, framing != .auto, framing != .u32be {
            throw ValidationError(
                "zstd-records are u32be records (each one zstd frame, of protobuf or a JSON line): \(option) \(framing.rawValue) cannot go with them"
            )
        }
    }
}

/// `--signal` values: a signal or `auto`.
enum SignalChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, traces, logs, metrics

    var signal: OTLPSignal? { self == .auto ? nil : OTLPSignal(rawValue: rawValue) }
}

/// Input files and how to read them; shared by every command that reads.
struct InputOptions: ParsableArguments {
    @Argument(
        help:
            "Files to read; `-` is standard input; a directory reads its OTLP files (names otlp-dump recognises: .u32be, .varint, .jsonl, .ndjson, .json, .pb, .binpb; gzip, zstd or neither) in name order, a rotating output's files oldest first (print, stats, validate and send; FIFOs, devices, broken links and a second name of a file already read are skipped)."
    )
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
            "Signal: auto (from the content, then a whole traces/logs/metrics token of the file name; content that decides nothing asks for this option), traces, logs or metrics."
    )
    var signal: SignalChoice = .auto

    @OptionGroup var limits: LimitOptions

    func validate() throws {
        try compression.check(framing: framing)
    }

    var readerOptions: OTLPReaderOptions {
        limits.readerOptions(framing: framing.framing, compression: compression.compression, signal: signal.signal)
    }

    /// The files to read: each argument, a directory (or a link to one) replaced by its OTLP files in name
    /// order (a rotating output's oldest first: ``oldestFirst(_:)``), its hidden files and folders left out. A directory that cannot be listed, or holds no OTLP
    /// file, is reported on stderr and sets `status`.
    func inputFiles(status: inout ExitCode) -> [String] {
        var out: [String] = []
        // Files already taken from a directory, by device and inode: a link in it to a file read already (a
        // "current" link beside the file) is not read twice, so `send` does not deliver it twice.
        var taken: [String: String] = [:]
        for file in files {
            guard file != "-", let found = OTLPFileStatus.reached(by: file), found.isDirectory else {
                out.append(file)
                continue
            }
            let directory = file.hasSuffix("/") ? file : file + "/"
            do throws(OTLPWriteError) {
                var names: [String] = []
                var identities: [String: String] = [:]
                for name in try OTLPSystemCall.names(inDirectory: file) where !name.hasPrefix(".") && Self.isOTLPFileName(name) {
                    guard let found = OTLPFileStatus.reached(by: directory + name) else {
                        Output.diagnostic("\(displayName(directory + name)): skipped: it cannot be reached (a broken link, or removed)")
                        continue
                    }
                    guard !found.isDirectory else { continue }
                    // The open-span journal is the pipeline's own bookkeeping (spans twice, started and ended), not
                    // telemetry: read it by name.
                    guard name != OTLPSpanJournal.fileName else {
                        Output.diagnostic("\(displayName(directory + name)): skipped: the open-span journal (name it to read it)")
                        continue
                    }
                    // A FIFO or device would block the read or never end: only regular files are read from a directory.
                    guard found.isRegularFile else {
                        Output.diagnostic("\(displayName(directory + name)): skipped: not a regular file")
                        continue
                    }
                    identities[name] = "\(found.device):\(found.inode)"
                    names.append(name)
                }
                if names.isEmpty {
                    Output.diagnostic(
                        "\(displayName(file)): a directory with no OTLP file (names ending .u32be.bin, .jsonl, …; gzip, zstd or neither)")
                    if status == .success { status = ExitStatus.ioError }
                }
                for name in Self.oldestFirst(names) {
                    let identity = identities[name] ?? name
                    if let first = taken[identity] {
                        Output.diagnostic("\(displayName(directory + name)): skipped: the same file as \(displayName(first))")
                        continue
                    }
                    taken[identity] = directory + name
                    out.append(directory + name)
                }
            } catch {
                Output.diagnostic("\(displayName(file)): \(error)")
                if status == .success { status = ExitStatus.ioError }
            }
        }
        return out
    }

    /// A directory's file names in the order their records were written: by name, except that a rotating
    /// output's files come oldest first, `traces.3.u32be.bin`, `traces.2.u32be.bin`, `traces.1.u32be.bin`,
    /// then `traces.u32be.bin` (in byte order the current file came last and `traces.10` before `traces.2`).
    /// A name is a rotated file only when the output's current file is among `names` too and the file output
    /// would give it that name (``OTLPRotatedFileName``: the number just before the extension, 1 the newest),
    /// so a date or a number in a name (`traces.20261125.u32be.bin`, `app.42.u32be.bin`) is not a rotation.
    static func oldestFirst(_ names: [String]) -> [String] {
        let present = Set(names)
        let keyed = names.map { name -> (base: [UInt8], age: Int, name: [UInt8]) in
            let parts = name.split(separator: ".", omittingEmptySubsequences: false)
            for index in parts.indices.dropFirst().reversed() {
                var base = parts
                base.remove(at: index)
                let current = base.joined(separator: ".")
                guard present.contains(current), let number = OTLPRotatedFileName(path: current).index(ofName: name) else { continue }
                return (Array(current.utf8), number, Array(name.utf8))
            }
            return (Array(name.utf8), 0, Array(name.utf8))
        }
        return keyed.sorted { a, b in
            if a.base != b.base { return a.base.lexicographicallyPrecedes(b.base) }
            if a.age != b.age { return a.age > b.age }
            return a.name.lexicographicallyPrecedes(b.name)
        }.map { String(decoding: $0.name, as: UTF8.self) }
    }

    /// Whether a file name says it holds OTLP data otlp-dump reads.
    static func isOTLPFileName(_ name: String) -> Bool {
        if OTLPFraming.fromFileName(name) != nil { return true }
        var base = Substring(name)
        for suffix in [".gz", ".zst", ".zstd"] where base.hasSuffix(suffix) { base = base.dropLast(suffix.count) }
        return base.hasSuffix(".json")
    }

    /// Reads every file (``inputFiles(status:)``), handing each record to `body` until it returns `false` (a
    /// `--limit` reached, the output gone): then no further record of this or any later file is read. Faults
    /// are reported on stderr, after `flush` is called (so what was read before a fault is shown before it);
    /// returns the exit code. With `follow`, the last file is followed as it grows (``FollowingFileSource``)
    /// until `follow.stop` is requested; `flush` is also called whenever it has been read to its current end.
    func forEachRecord(
        follow: (pollIntervalMilliseconds: Int, stop: FollowStop)? = nil, flush: @escaping () -> Void = {},
        _ body: (String, OTLPRecordReader, OTLPRecord) -> Bool
    ) -> ExitCode {
        var status = ExitCode.success
        var stopped = false
        let inputs = inputFiles(status: &status)
        for (position, file) in inputs.enumerated() where !stopped {
            let reader: OTLPRecordReader
            do {
                if let follow, position == inputs.count - 1, file != "-" {
                    let source = try FollowingFileSource(
                        path: file, pollIntervalMilliseconds: follow.pollIntervalMilliseconds, stop: follow.stop, onIdle: flush)
                    reader = try OTLPRecordReader(source: source, name: file, options: readerOptions)
                } else {
                    reader = try OTLPRecordReader(path: file, options: readerOptions)
                }
            } catch {
                flush()
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
                flush()
                Output.diagnostic("\(displayName(file)): \(error)")
                if status == .success { status = error.code == .io ? ExitStatus.ioError : ExitStatus.damagedInput }
            }
        }
        return status
    }
}

func displayName(_ file: String) -> String { file == "-" ? "<stdin>" : TerminalText.escaped(file) }
