import ArgumentParser
import OTLPWire

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Count records, bytes, spans and log records per signal, resource, scope, span name and severity."
    )

    @OptionGroup var input: InputOptions
    @OptionGroup var filter: FilterOptions

    struct Tally {
        var counts: [String: Int] = [:]
        mutating func add(_ key: String, _ count: Int = 1) { counts[key, default: 0] += count }

        /// Most frequent first, then by name: deterministic.
        var sorted: [(String, Int)] { counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) } }
    }

    func validate() throws {
        try OutputCollision.check(output: "-", inputs: input.files)
    }

    func run() throws {
        var records = 0
        var recordBytes = 0
        var streamBytes = 0
        var inputBytes = 0
        var signals = Tally(), resources = Tally(), scopes = Tally(), spanNames = Tally(), severities = Tally()
        var recordFilter = RecordFilter(filter)
        var lastReader: OTLPStreamReader?
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
                signals.add("traces (spans)", data.spanCount)
                for group in data.resourceSpans {
                    let count = group.scopeSpans.reduce(0) { $0 + $1.spans.count }
                    resources.add(resourceName(group.resource), count)
                    for scopeGroup in group.scopeSpans {
                        scopes.add(scopeName(scopeGroup.scope), scopeGroup.spans.count)
                        for span in scopeGroup.spans { spanNames.add(span.name) }
                    }
                }
            case .logs(let data):
                signals.add("logs (log records)", data.logRecordCount)
                for group in data.resourceLogs {
                    let count = group.scopeLogs.reduce(0) { $0 + $1.logRecords.count }
                    resources.add(resourceName(group.resource), count)
                    for scopeGroup in group.scopeLogs {
                        scopes.add(scopeName(scopeGroup.scope), scopeGroup.logRecords.count)
                        for record in scopeGroup.logRecords {
                            severities.add(record.severityText.isEmpty || record.severityText == record.severity.description ? record.severity.description : "\(record.severity) (\(record.severityText))")
                        }
                    }
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
        for (title, tally) in [("signal", signals), ("resource", resources), ("scope", scopes), ("span name", spanNames), ("severity", severities)] where !tally.counts.isEmpty {
            output.write("\nby \(title):\n")
            for (key, count) in tally.sorted { output.write("  \(String(count).leftPadded(8))  \(key.isEmpty ? "(empty)" : key)\n") }
        }
        let exitStatus = output.finish(status: status)
        if exitStatus != .success { throw exitStatus }
    }

    private func resourceName(_ resource: OTLPResource?) -> String {
        guard let resource else { return "(no resource)" }
        for attribute in resource.attributes where attribute.key == "service.name" {
            if case .string(let name)? = attribute.value { return "service.name=\(name)" }
        }
        return resource.attributes.isEmpty ? "(no attributes)" : resource.attributes.map(\.key).joined(separator: ",")
    }

    private func scopeName(_ scope: OTLPInstrumentationScope?) -> String {
        guard let scope else { return "(no scope)" }
        return scope.version.isEmpty ? scope.name : "\(scope.name) \(scope.version)"
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
