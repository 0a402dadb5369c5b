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
            with time (UTC), severity and body. Every span is shown exactly once: a span whose parent is not in \
            the record (or filtered out) is a root marked `parent=… (absent)`; odd links are marked too: \
            `(parent is itself)`, `(parent cycle)` where a cycle is entered, `(span ID used by N spans)`. Past 32 \
            levels the indentation stops growing and lines start with `[depth N]`. `--format json` writes one \
            OTLP/JSON request per line, ready for the Collector's otlpjsonfile receiver or jq.
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

    func validate() throws {
        try OutputCollision.check(output: "-", inputs: input.files)
    }

    func run() throws {
        let output = Output.standard
        let useColor = color == .always || (color == .auto && output.isTerminal)
        var renderer = TreeRenderer(color: useColor, showDetails: !brief)
        let jsonEncoder = OTLPJSONEncoder()
        var recordFilter = RecordFilter(filter)
        let status = input.forEachRecord { file, reader, record in
            let payload = recordFilter.apply(record.payload)
            switch format {
            case .json:
                switch payload {
                case .traces(let data): output.write(bytes: jsonEncoder.encode(data))
                case .logs(let data): output.write(bytes: jsonEncoder.encode(data))
                }
                output.write("\n")
            case .tree:
                if !filter.isActive || payload.itemCount > 0 {
                    output.write(renderer.render(payload, file: displayName(file), record: record))
                }
            }
            return !recordFilter.isExhausted && !output.isBroken
        }
        let exitStatus = output.finish(status: status)
        if exitStatus != .success { throw exitStatus }
    }
}
