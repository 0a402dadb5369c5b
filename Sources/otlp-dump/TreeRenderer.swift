import OTLPWire

/// Renders records as an indented, human-readable tree (deterministic: no clock, stable ordering).
struct TreeRenderer {
    let color: Bool
    let showDetails: Bool
    static let barWidth = 24
    private let jsonEncoder = OTLPJSONEncoder()

    init(color: Bool, showDetails: Bool) {
        self.color = color
        self.showDetails = showDetails
    }

    private func paint(_ text: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
    private func dim(_ text: String) -> String { paint(text, "2") }
    private func bold(_ text: String) -> String { paint(text, "1") }

    mutating func render(_ payload: OTLPPayload, file: String, record: OTLPRecord) -> String {
        var out = ""
        let noun = payload.signal == .traces ? "spans" : "log records"
        out += bold("── \(file) · record \(record.index) · \(payload.itemCount) \(noun) · \(record.byteCount) bytes") + "\n"
        switch payload {
        case .traces(let data):
            for group in data.resourceSpans {
                out += resourceLine(group.resource, schemaURL: group.schemaURL)
                for scopeGroup in group.scopeSpans {
                    out += scopeLine(scopeGroup.scope, schemaURL: scopeGroup.schemaURL)
                    out += traces(scopeGroup.spans)
                }
            }
        case .logs(let data):
            for group in data.resourceLogs {
                out += resourceLine(group.resource, schemaURL: group.schemaURL)
                for scopeGroup in group.scopeLogs {
                    out += scopeLine(scopeGroup.scope, schemaURL: scopeGroup.schemaURL)
                    for record in scopeGroup.logRecords { out += logLine(record) }
                }
            }
        }
        return out
    }

    // MARK: - Resource and scope

    private func resourceLine(_ resource: OTLPResource?, schemaURL: String) -> String {
        var line = "resource"
        if let resource {
            line += resource.attributes.isEmpty ? " (no attributes)" : " " + attributes(resource.attributes)
            if resource.droppedAttributesCount > 0 { line += dim(" (+\(resource.droppedAttributesCount) dropped)") }
        } else {
            line += " (none)"
        }
        if !schemaURL.isEmpty { line += dim(" schema=\(schemaURL)") }
        return line + "\n"
    }

    private func scopeLine(_ scope: OTLPInstrumentationScope?, schemaURL: String) -> String {
        var line = "  scope "
        if let scope {
            line += scope.name.isEmpty ? "(unnamed)" : quoteIfNeeded(scope.name)
            if !scope.version.isEmpty { line += " " + scope.version }
            if !scope.attributes.isEmpty { line += " " + attributes(scope.attributes) }
        } else {
            line += "(none)"
        }
        if !schemaURL.isEmpty { line += dim(" schema=\(schemaURL)") }
        return line + "\n"
    }

    // MARK: - Traces

    /// The spans of one scope, grouped by trace and drawn as trees. Works on indices into `spans` (no copies
    /// of the spans) and walks each tree with an explicit stack: a chain of parents as long as the record is
    /// cannot exhaust the stack.
    private func traces(_ spans: [OTLPSpan]) -> String {
        var order: [OTLPTraceID?] = []
        var byTrace: [OTLPTraceID?: [Int]] = [:]
        for (index, span) in spans.enumerated() {
            if byTrace[span.traceID] == nil { order.append(span.traceID) }
            byTrace[span.traceID, default: []].append(index)
        }
        var out = ""
        for traceID in order {
            let members = byTrace.removeValue(forKey: traceID)!
            let start = members.lazy.map { spans[$0].startTimeUnixNano }.min() ?? 0
            let end = max(members.lazy.map { spans[$0].endTimeUnixNano }.max() ?? 0, start)
            out += "    trace \(traceID?.hex ?? "(no trace id)") · \(members.count) span\(members.count == 1 ? "" : "s") · \(UnixTime.duration(end - start)) · starts \(UnixTime.iso8601(start))\n"
            // Children by parent; spans whose parent is not in this batch are roots.
            let present = Set(members.compactMap { spans[$0].spanID })
            var children: [OTLPSpanID: [Int]] = [:]
            var roots: [Int] = []
            for index in members {
                let span = spans[index]
                if let parent = span.parentSpanID, present.contains(parent), parent != span.spanID {
                    children[parent, default: []].append(index)
                } else {
                    roots.append(index)
                }
            }
            var visited = Set<OTLPSpanID>()
            for root in sortSpans(roots, spans) {
                spanTree(root, spans, children: children, visited: &visited, traceStart: start, traceEnd: end, into: &out)
            }
            // Spans in a parent cycle are reachable from no root; show them rather than lose them.
            for index in sortSpans(members, spans) where spans[index].spanID.map({ !visited.contains($0) }) ?? false {
                spanTree(index, spans, children: children, visited: &visited, traceStart: start, traceEnd: end, into: &out)
            }
        }
        return out
    }

    private func sortSpans(_ indices: [Int], _ spans: [OTLPSpan]) -> [Int] {
        indices.sorted { a, b in
            let (x, y) = (spans[a], spans[b])
            return (x.startTimeUnixNano, x.spanID?.value ?? 0, x.name) < (y.startTimeUnixNano, y.spanID?.value ?? 0, y.name)
        }
    }

    /// Draws the tree under `root` depth first, children in start order, each span once.
    private func spanTree(
        _ root: Int, _ spans: [OTLPSpan], children: [OTLPSpanID: [Int]], visited: inout Set<OTLPSpanID>,
        traceStart: UInt64, traceEnd: UInt64, into out: inout String
    ) {
        var stack: [(index: Int, depth: Int)] = [(root, 0)]
        while let (index, depth) = stack.popLast() {
            let span = spans[index]
            if let id = span.spanID {
                guard !visited.contains(id) else { continue }
                visited.insert(id)
            }
            out += spanLines(span, depth: depth, traceStart: traceStart, traceEnd: traceEnd)
            if let id = span.spanID, let kids = children[id] {
                for child in sortSpans(kids, spans).reversed() { stack.append((child, depth + 1)) }
            }
        }
    }

    /// One span's line, and its details when shown.
    private func spanLines(_ span: OTLPSpan, depth: Int, traceStart: UInt64, traceEnd: UInt64) -> String {
        let indent = String(repeating: "  ", count: 3 + min(depth, 40))
        var line = indent + bar(span, traceStart: traceStart, traceEnd: traceEnd) + " "
        let isError = span.status?.code == .error
        let name = span.name.isEmpty ? "(unnamed)" : quoteIfNeeded(span.name)
        line += isError ? paint(name, "1;31") : bold(name)
        line += " " + UnixTime.duration(span.durationNano)
        line += dim(" \(span.kind) span=\(span.spanID?.hex ?? "-")")
        if let status = span.status, status.code != .unset || !status.message.isEmpty {
            let text = "status=\(status.code)" + (status.message.isEmpty ? "" : " \"\(escaped(status.message))\"")
            line += " " + (isError ? paint(text, "31") : text)
        }
        var out = line + "\n"
        if showDetails {
            let detailIndent = indent + String(repeating: " ", count: Self.barWidth + 3)
            if !span.attributes.isEmpty { out += detailIndent + dim(attributes(span.attributes)) + "\n" }
            for event in span.events {
                let offset = event.timeUnixNano >= span.startTimeUnixNano ? "+" + UnixTime.duration(event.timeUnixNano - span.startTimeUnixNano) : UnixTime.iso8601(event.timeUnixNano)
                out += detailIndent + "• \(quoteIfNeeded(event.name)) \(offset)" + (event.attributes.isEmpty ? "" : " " + dim(attributes(event.attributes))) + "\n"
            }
            for link in span.links {
                out += detailIndent + "→ link trace=\(link.traceID?.hex ?? "-") span=\(link.spanID?.hex ?? "-")" + (link.attributes.isEmpty ? "" : " " + dim(attributes(link.attributes))) + "\n"
            }
            var dropped: [String] = []
            if span.droppedAttributesCount > 0 { dropped.append("\(span.droppedAttributesCount) attributes") }
            if span.droppedEventsCount > 0 { dropped.append("\(span.droppedEventsCount) events") }
            if span.droppedLinksCount > 0 { dropped.append("\(span.droppedLinksCount) links") }
            if !dropped.isEmpty { out += detailIndent + dim("dropped: " + dropped.joined(separator: ", ")) + "\n" }
        }
        return out
    }

    /// A waterfall bar: where the span sits within the trace, `Self.barWidth` cells wide.
    private func bar(_ span: OTLPSpan, traceStart: UInt64, traceEnd: UInt64) -> String {
        let width = Self.barWidth
        let total = Double(max(traceEnd - traceStart, 1))
        let from = span.startTimeUnixNano >= traceStart ? Double(span.startTimeUnixNano - traceStart) : 0
        var first = Int((from / total * Double(width)).rounded(.down))
        first = min(max(first, 0), width - 1)
        var length = Int((Double(span.durationNano) / total * Double(width)).rounded())
        length = min(max(length, 1), width - first)
        let cells = String(repeating: " ", count: first) + String(repeating: "█", count: length)
            + String(repeating: " ", count: width - first - length)
        return "|" + paint(cells, "36") + "|"
    }

    // MARK: - Logs

    private func logLine(_ record: OTLPLogRecord) -> String {
        let time = record.timeUnixNano != 0 ? record.timeUnixNano : record.observedTimeUnixNano
        let severity = record.severityText.isEmpty ? record.severity.description : record.severityText
        let padded = severity.count < 5 ? severity + String(repeating: " ", count: 5 - severity.count) : severity
        let severityText: String
        switch record.severity.rawValue {
        case 17...: severityText = paint(padded, "1;31")
        case 13..<17: severityText = paint(padded, "33")
        default: severityText = padded
        }
        var line = "    \(time == 0 ? "(no time)" : UnixTime.iso8601(time)) \(severityText) "
        if !record.eventName.isEmpty { line += bold("[\(record.eventName)]") + " " }
        switch record.body {
        case .string(let text)?: line += escaped(text)
        case let body?: line += value(body)
        case nil: line += dim("(no body)")
        }
        if let traceID = record.traceID { line += dim(" trace=\(traceID.hex)") }
        if let spanID = record.spanID { line += dim(" span=\(spanID.hex)") }
        var out = line + "\n"
        if showDetails, !record.attributes.isEmpty {
            out += "      " + dim(attributes(record.attributes)) + "\n"
        }
        return out
    }

    // MARK: - Values

    private func attributes(_ attributes: [OTLPAttribute]) -> String {
        attributes.map { "\(quoteIfNeeded($0.key))=\($0.value.map(value) ?? "<none>")" }.joined(separator: " ")
    }

    private func value(_ value: OTLPAttributeValue) -> String {
        switch value {
        case .string(let text): return "\"\(escaped(text))\""
        case .bool(let bool): return String(bool)
        case .int(let int): return String(int)
        case .double(let double): return double.isNaN ? "NaN" : String(double)
        case .bytes(let bytes): return "0x" + bytes.map { byte in String(byte, radix: 16).count == 1 ? "0" + String(byte, radix: 16) : String(byte, radix: 16) }.joined()
        case .array(let values): return "[" + values.map(self.value).joined(separator: ", ") + "]"
        case .keyValueList(let list): return "{" + attributes(list) + "}"
        case .empty: return "<empty>"
        }
    }

    /// Control characters (including U+0000) and quotes escaped as in JSON, without the quotes.
    private func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\"" || $0 == "\\" || $0.value == 0x7F }) else { return text }
        let quoted = jsonEncoder.encode(.string(text))  // {"stringValue":"..."}
        return String(quoted.dropFirst(16).dropLast(2))
    }

    private func quoteIfNeeded(_ text: String) -> String {
        text.isEmpty || text.contains(where: { $0 == " " || $0 == "=" }) || escaped(text) != text ? "\"\(escaped(text))\"" : text
    }
}
