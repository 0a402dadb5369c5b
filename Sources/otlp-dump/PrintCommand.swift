import ArgumentParser
import OTLPWire

/// Output formats of `print`.
enum PrintFormat: String, ExpressibleByArgument, CaseIterable {
    /// Resource → scope → trace tree with a waterfall; logs with time, severity and body.
    case tree
    /// OTLP/JSON, one request per line.
    case json
}

/// When to colour the tree.
enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, always, never
}

struct PrintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "print",
        abstract: "Show the records: a readable tree (default) or OTLP/JSON lines.",
        discussion: """
            The tree lists each record's resources and scopes, then each trace with its spans indented under \
            their parents, durations and a waterfall bar scaled to the trace, attributes and events; log records \
            with time (UTC), severity and body. A trace written over several records is drawn as one tree, with \
            the first of them: records are held up to --window (64) before they are drawn, so a span whose \
            parent is in another record within the window sits under it, marked with its record, and the later \
            records say where their spans were drawn; with --trace-id every record of the trace is held, so the \
            trace is drawn whole. Every span is shown exactly once: a span whose parent is not in the window \
            (or filtered out) is a root marked `parent=… (absent)`; odd links are marked too: \
            `(parent is itself)`, `(parent cycle)` where a cycle is entered, `(span ID used by N spans)`. Past 32 \
            levels the indentation stops growing and lines start with `[depth N]`. `--format json` writes one \
            OTLP/JSON request per line, ready for the Collector's otlpjsonfile receiver or jq. --follow reads \
            the last file on as it grows, like tail -f (what is held is drawn each time the end is reached), \
            until SIGINT or SIGTERM, which ends it with exit status 0.
            """
    )

    @OptionGroup var input: InputOptions
    @OptionGroup var filter: FilterOptions

    @Option(help: "tree or json.")
    var format: PrintFormat = .tree

    @Option(help: "Colour the tree: auto (only on a terminal), always or never.")
    var color: ColorChoice = .auto

    @Flag(help: "Leave attributes and events out of the tree.")
    var brief = false

    @Option(
        help:
            "Records held before the tree draws them, so a trace written over several records is one tree (1...100000; 1 draws each record alone). --trace-id holds every record."
    )
    var window = 64

    @Flag(help: "Read the last file on as it is written (like tail -f), until SIGINT or SIGTERM.")
    var follow = false

    @Option(name: .customLong("poll-interval-ms"), help: "With --follow: how often to look for new bytes, in milliseconds (1...60000).")
    var pollIntervalMilliseconds = 200

    func validate() throws {
        try OutputCollision.check(output: "-", inputs: input.files)
        guard (1...100_000).contains(window) else { throw ValidationError("--window must be 1...100000 records") }
        guard (1...60_000).contains(pollIntervalMilliseconds) else { throw ValidationError("--poll-interval-ms must be 1...60000") }
        if follow {
            guard input.files != ["-"] else {
                throw ValidationError("--follow reads a file: give its path (standard input is read to its end anyway)")
            }
            if input.framing == .auto, let last = input.files.last, OTLPFileStatus.reached(by: last)?.isDirectory != true,
                OTLPFraming.fromFileName(last) == nil
            {
                throw ValidationError(
                    "--follow cannot wait for enough bytes to detect the framing of \(displayName(last)): give --framing, or a name ending .u32be.bin, .varint.bin or .jsonl"
                )
            }
        }
    }

    func run() throws {
        let output = Output.standard
        let useColor = color == .always || (color == .auto && output.isTerminal)
        let trees = TraceWindow(
            capacity: filter.traceID != nil ? Int.max : window, renderer: TreeRenderer(color: useColor, showDetails: !brief),
            write: { output.write($0) })
        let jsonEncoder = OTLPJSONEncoder()
        var recordFilter = RecordFilter(filter)
        let stop = FollowStop()
        if follow { stop.installSignalHandlers() }
        let status = input.forEachRecord(
            follow: follow ? (pollIntervalMilliseconds, stop) : nil,
            flush: {
                trees.flush()
                output.flush()
                if output.isBroken { stop.request() }  // nobody reads on: stop following
            }
        ) { file, reader, record in
            let payload = recordFilter.apply(record.payload)
            switch format {
            case .json:
                // A record the filters left empty writes no line (it wrote `{}`); unfiltered, every record does.
                if !filter.isActive || payload.itemCount > 0 {
                    output.write(bytes: jsonEncoder.encode(payload))
                    output.write("\n")
                }
            case .tree:
                if !filter.isActive || payload.itemCount > 0 {
                    trees.add(file: file, record: record, payload: payload)
                }
            }
            return !recordFilter.isExhausted && !output.isBroken
        }
        trees.flush()
        if let note = recordFilter.leftOutNote { Output.diagnostic(note) }
        let exitStatus = output.finish(status: status)
        if exitStatus != .success { throw exitStatus }
    }
}
