import ArgumentParser
import OTLPWire

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract:
            "Count records, bytes, spans, log records and metrics per signal, resource, scope, span name, severity, session and metric (with data points)."
    )

    @OptionGroup var input: InputOptions
    @OptionGroup var filter: FilterOptions

    struct Tally {
        var counts: [String: Int] = [:]
        mutating func add(_ key: String, _ count: Int = 1) { counts[key, default: 0] += count }

        /// Most frequent first, then by name: deterministic.
        var sorted: [(String, Int)] { counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) } }
    }

    /// What `stats` counts, per signal, resource, scope, span name, severity and session (`session.id`).
    struct Tallies {
        var signals = Tally(), resources = Tally(), scopes = Tally(), spanNames = Tally(), severities = Tally(), sessions = Tally()
        /// Metrics, and their data points, per metric name and type (`http.server.duration (histogram)`).
        var metrics = Tally(), dataPoints = Tally()
        /// Items without a `session.id` attribute (listed only beside items that have one).
        var itemsWithoutSession = 0

        /// Counts `data`'s items under `signal`, their resources and scopes; `eachItem` counts what is
        /// particular to the signal.
        mutating func add<Item>(_ data: OTLPSignalData<Item>, as signal: String, _ eachItem: (Item, inout Tallies) -> Void) {
            signals.add(signal, data.itemCount)
            for group in data.resourceGroups {
                resources.add(Self.resourceName(group.resource), group.scopeGroups.reduce(0) { $0 + $1.items.count })
                for scopeGroup in group.scopeGroups {
                    scopes.add(Self.scopeName(scopeGroup.scope), scopeGroup.items.count)
                    for item in scopeGroup.items { eachItem(item, &self) }
                }
            }
        }

        /// Counts an item under its `session.id`, if it has one.
        mutating func addSession(of attributes: [OTLPAttribute]) {
            for attribute in attributes where attribute.key == "session.id" {
                if case .string(let id)? = attribute.value {
                    sessions.add(id)
                    return
                }
            }
            itemsWithoutSession += 1
        }

        private static func resourceName(_ resource: OTLPResource?) -> String {
            guard let resource else { return "(no resource)" }
            for attribute in resource.attributes where attribute.key == "service.name" {
                if case .string(let name)? = attribute.value { return "service.name=\(name)" }
            }
            return resource.attributes.isEmpty ? "(no attributes)" : resource.attributes.map(\.key).joined(separator: ",")
        }

        private static func scopeName(_ scope: OTLPInstrumentationScope?) -> String {
            guard let scope else { return "(no scope)" }
            return scope.version.isEmpty ? scope.name : "\(scope.name) \(scope.version)"
        }
    }

    /// Sessions listed, most items first; the rest are summed on one line (session IDs are many).
    static let maxSessionRows = 20

    func validate() throws {
        try OutputCollision.check(output: "-", inputs: input.files)
    }

    func run() throws {
        var records = 0
        var recordBytes = 0
        var streamBytes = 0
        var inputBytes = 0
        var tallies = Tallies()
        var recordFilter = RecordFilter(filter)
        var lastReader: OTLPRecordReader?
        var finishedReaders: [(Int, Int)] = []
        let status = input.forEachRecord { _, reader, record in
            if lastReader !== reader {
                if let lastReader { finishedReaders.append((lastReader.inputBytesRead, lastReader.streamBytesRead)) }
                lastReader = reader
            }
            records += 1
            recordBytes += record.byteCount
            let payload = recordFilter.apply(record.payload)
            switch payload {
            case .traces(let data):
                tallies.add(data, as: "traces (spans)") { span, tallies in
                    tallies.spanNames.add(span.name)
                    tallies.addSession(of: span.attributes)
                }
            case .logs(let data):
                tallies.add(data, as: "logs (log records)") { record, tallies in
                    tallies.severities.add(
                        record.severityText.isEmpty || record.severityText == record.severity.description
                            ? record.severity.description : "\(record.severity) (\(record.severityText))")
                    tallies.addSession(of: record.attributes)
                }
            case .metrics(let data):
                tallies.add(data, as: "metrics") { metric, tallies in
                    let key = "\(metric.name) (\(metric.data?.kindName ?? "no data"))"
                    tallies.metrics.add(key)
                    tallies.dataPoints.add(key, metric.data?.dataPointCount ?? 0)
                }
            }
            return !recordFilter.isExhausted
        }
        if let lastReader { finishedReaders.append((lastReader.inputBytesRead, lastReader.streamBytesRead)) }
        for (input, stream) in finishedReaders {
            inputBytes += input
            streamBytes += stream
        }
        let output = Output.standard
        output.write("records: \(records)\n")
        output.write("bytes read: \(inputBytes) (decompressed stream \(streamBytes), messages \(recordBytes))\n")
        var sessions = tallies.sessions
        if !sessions.counts.isEmpty, tallies.itemsWithoutSession > 0 { sessions.add("(no session.id)", tallies.itemsWithoutSession) }
        for (title, tally, maxRows) in [
            ("signal", tallies.signals, Int.max), ("resource", tallies.resources, .max), ("scope", tallies.scopes, .max),
            ("span name", tallies.spanNames, .max), ("severity", tallies.severities, .max),
            ("session.id", sessions, Self.maxSessionRows), ("metric (type)", tallies.metrics, .max),
            ("metric (type), data points", tallies.dataPoints, .max),
        ] where !tally.counts.isEmpty {
            output.write("\nby \(title):\n")
            let rows = tally.sorted
            for (key, count) in rows.prefix(maxRows) {
                output.write("  \(String(count).leftPadded(8))  \(key.isEmpty ? "(empty)" : TerminalText.escaped(key))\n")
            }
            if rows.count > maxRows {
                let rest = rows.dropFirst(maxRows)
                output.write("  \(String(rest.reduce(0) { $0 + $1.1 }).leftPadded(8))  (\(rest.count) more)\n")
            }
        }
        if let note = recordFilter.leftOutNote { Output.diagnostic(note) }
        let exitStatus = output.finish(status: status)
        if exitStatus != .success { throw exitStatus }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
