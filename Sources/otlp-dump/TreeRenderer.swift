import OTLPWire

/// Renders records as an indented, human-readable tree (deterministic: no clock, stable ordering).
struct TreeRenderer {
    let color: Bool
    let showDetails: Bool
    static let barWidth = 24

    init(color: Bool, showDetails: Bool) {
        self.color = color
        self.showDetails = showDetails
    }

    func paint(_ text: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
    func dim(_ text: String) -> String { paint(text, "2") }
    func bold(_ text: String) -> String { paint(text, "1") }

    /// A span of a later record drawn in an earlier record's tree (``TraceWindow``), and which record it is.
    struct LaterSpan {
        var span: OTLPSpan
        var origin: String
    }

    /// Draws one record. `laterSpans` are spans of this record's traces that later records hold: each trace's
    /// tree takes them in (at the trace's first scope in this record). `drawnWith` names, for traces whose spans
    /// were drawn with an earlier record, where: such a trace is one line here.
    mutating func render(
        _ payload: OTLPPayload, file: String, record: OTLPRecord, laterSpans: [OTLPTraceID: [LaterSpan]] = [:],
        drawnWith: [OTLPTraceID: String] = [:]
    ) -> String {
        var out = ""
        let noun = payload.signal.itemNoun
        out += bold("── \(file) · record \(record.index) · \(payload.itemCount) \(noun) · \(record.byteCount) bytes") + "\n"
        var later = laterSpans
        switch payload {
        case .traces(let data): out += groups(data) { traces($0, later: &later, drawnWith: drawnWith) }
        case .logs(let data): out += groups(data) { $0.map(logLine).joined() }
        case .metrics(let data): out += groups(data) { $0.map(metricLines).joined() }
        }
        return out
    }

    // MARK: - Resource and scope

    /// Each resource and scope line, with the lines `items` draws for the scope's items under it.
    private func groups<Item>(_ data: OTLPSignalData<Item>, _ items: ([Item]) -> String) -> String {
        var out = ""
        for group in data.resourceGroups {
            out += resourceLine(group.resource, schemaURL: group.schemaURL)
            for scopeGroup in group.scopeGroups {
                out += scopeLine(scopeGroup.scope, schemaURL: scopeGroup.schemaURL)
                out += items(scopeGroup.items)
            }
        }
        return out
    }

    private func resourceLine(_ resource: OTLPResource?, schemaURL: String) -> String {
        var line = "resource"
        if let resource {
            line += resource.attributes.isEmpty ? " (no attributes)" : " " + attributes(resource.attributes)
            if resource.droppedAttributesCount > 0 { line += dim(" (+\(resource.droppedAttributesCount) dropped)") }
        } else {
            line += " (none)"
        }
        if !schemaURL.isEmpty { line += dim(" schema=\(quoteIfNeeded(schemaURL))") }
        return line + "\n"
    }

    private func scopeLine(_ scope: OTLPInstrumentationScope?, schemaURL: String) -> String {
        var line = "  scope "
        if let scope {
            line += scope.name.isEmpty ? "(unnamed)" : quoteIfNeeded(scope.name)
            if !scope.version.isEmpty { line += " " + quoteIfNeeded(scope.version) }
            if !scope.attributes.isEmpty { line += " " + attributes(scope.attributes) }
        } else {
            line += "(none)"
        }
        if !schemaURL.isEmpty { line += dim(" schema=\(quoteIfNeeded(schemaURL))") }
        return line + "\n"
    }

    // MARK: - Traces

    /// Each trace of a scope, its spans as a tree under their parents.
    ///
    /// Every span is shown exactly once, whatever the parent links: a span whose parent is absent (another
    /// record, or filtered out) is a root marked `parent=… (absent)`; one that is its own parent is a root
    /// marked `(parent is itself)`; a parent cycle (and what hangs off it) is shown from the span where the
    /// parent links of its earliest span first come back, marked `(parent cycle)`; spans sharing a span ID are each shown, marked `(span ID used by N spans)`,
    /// and the children of that ID sit under the first of them. The walk is iterative, so a chain of any
    /// depth renders without recursion; indentation stops growing at ``maxIndentDepth`` and deeper spans
    /// carry their depth instead.
    ///
    /// Spans of the same trace in later records (`later`) join the tree of the trace's first scope here, each
    /// marked with its record; a trace drawn with an earlier record (`drawnWith`) is one line saying where.
    private func traces(_ spans: [OTLPSpan], later: inout [OTLPTraceID: [LaterSpan]], drawnWith: [OTLPTraceID: String]) -> String {
        var order: [OTLPTraceID?] = []
        var byTrace: [OTLPTraceID?: [Int]] = [:]
        for (index, span) in spans.enumerated() {
            if byTrace[span.traceID] == nil { order.append(span.traceID) }
            byTrace[span.traceID, default: []].append(index)
        }
        var out = ""
        for traceID in order {
            // The trace's spans by their index in `spans` (not copied: a record may hold a great many).
            let members = byTrace.removeValue(forKey: traceID)!
            if let traceID, let place = drawnWith[traceID] {
                out +=
                    "    trace \(traceID.description) · \(members.count) span\(members.count == 1 ? "" : "s") " + dim("drawn with \(place)")
                    + "\n"
                continue
            }
            let joining = traceID.flatMap { later.removeValue(forKey: $0) } ?? []
            let trace: TraceSpans
            if joining.isEmpty {
                trace = TraceSpans(all: spans, members: members)
            } else {
                let all = members.map { spans[$0] } + joining.map(\.span)
                trace = TraceSpans(
                    all: all, members: Array(all.indices),
                    origins: [String?](repeating: nil, count: members.count) + joining.map(\.origin))
            }
            let start = trace.lazy.map(\.startTimeUnixNano).min() ?? 0
            let end = max(trace.lazy.map(\.endTimeUnixNano).max() ?? 0, start)
            let fromLater = joining.isEmpty ? "" : dim(" (\(joining.count) from later records)")
            out +=
                "    trace \(traceID?.description ?? "(no trace id)") · \(trace.count) span\(trace.count == 1 ? "" : "s")\(fromLater) · \(UnixTime.duration(end - start)) · starts \(UnixTime.iso8601(start))\n"
            out += spanForest(trace, traceStart: start, traceEnd: end)
        }
        return out
    }

    /// Indentation grows with depth up to here; deeper spans are indented as this level and show their depth.
    static let maxIndentDepth = 32

    /// Why a span is shown where it is, when its parent link is not a plain parent in the same trace.
    private enum Placement {
        case child, root, orphan, ownParent, cycle
    }

    /// The spans of one trace: a view of a scope's spans through their indices.
    private struct TraceSpans: RandomAccessCollection {
        let all: [OTLPSpan]
        let members: [Int]
        /// The record each span comes from, by position, when the trace takes in spans of later records.
        var origins: [String?]? = nil
        var startIndex: Int { 0 }
        var endIndex: Int { members.count }
        subscript(position: Int) -> OTLPSpan { all[members[position]] }
    }

    /// The spans of one trace as a tree (see ``traces(_:)``), walked with an explicit stack.
    private func spanForest(_ spans: TraceSpans, traceStart: UInt64, traceEnd: UInt64) -> String {
        let order = sortedIndices(spans, Array(spans.indices))
        var spansByID: [OTLPSpanID: Int] = [:]
        for span in spans { if let id = span.spanID { spansByID[id, default: 0] += 1 } }
        var children: [OTLPSpanID: [Int]] = [:]
        var roots: [Int] = []
        var placement = [Placement](repeating: .child, count: spans.count)
        for index in order {
            let span = spans[index]
            guard let parent = span.parentSpanID else {
                placement[index] = .root
                roots.append(index)
                continue
            }
            if parent == span.spanID {
                placement[index] = .ownParent
                roots.append(index)
            } else if spansByID[parent] == nil {
                placement[index] = .orphan
                roots.append(index)
            } else {
                children[parent, default: []].append(index)  // in sorted order
            }
        }
        var shown = [Bool](repeating: false, count: spans.count)
        var expandedIDs = Set<OTLPSpanID>()
        var out = ""
        var stack: [(index: Int, depth: Int)] = []
        func walk(from root: Int) {
            stack.append((root, 0))
            while let (index, depth) = stack.popLast() {
                guard !shown[index] else { continue }  // the way back into a parent cycle
                shown[index] = true
                let span = spans[index]
                out += spanLines(
                    span, depth: depth, placement: placement[index], sharedIDCount: span.spanID.map { spansByID[$0] ?? 1 } ?? 1,
                    origin: spans.origins?[index], traceStart: traceStart, traceEnd: traceEnd)
                // The children of a span ID go under the first span shown with that ID.
                guard let id = span.spanID, expandedIDs.insert(id).inserted, let kids = children[id] else { continue }
                for child in kids.reversed() where !shown[child] { stack.append((child, depth + 1)) }
            }
        }
        for root in roots { walk(from: root) }
        // What no root reaches is in or under a parent cycle: climb the parent links from the earliest span
        // not yet shown to the first span met twice, and show the cycle from there.
        var firstWithID: [OTLPSpanID: Int] = [:]
        for index in order { if let id = spans[index].spanID, firstWithID[id] == nil { firstWithID[id] = index } }
        var climbedIn = [Int](repeating: -1, count: spans.count)
        for index in order where !shown[index] {
            var entry = index
            while climbedIn[entry] != index, let parent = spans[entry].parentSpanID, let next = firstWithID[parent], !shown[next] {
                climbedIn[entry] = index
                entry = next
            }
            placement[entry] = .cycle
            walk(from: entry)
        }
        return out
    }

    private func sortedIndices(_ spans: TraceSpans, _ indices: [Int]) -> [Int] {
        indices.sorted { a, b in
            let (x, y) = (spans[a], spans[b])
            return (x.startTimeUnixNano, x.spanID?.value ?? 0, x.name, a) < (y.startTimeUnixNano, y.spanID?.value ?? 0, y.name, b)
        }
    }

    /// One span's line (and, unless brief, its detail lines).
    private func spanLines(
        _ span: OTLPSpan, depth: Int, placement: Placement, sharedIDCount: Int, origin: String?, traceStart: UInt64, traceEnd: UInt64
    ) -> String {
        let indent = String(repeating: "  ", count: 3 + min(depth, Self.maxIndentDepth))
        var line = indent
        if depth > Self.maxIndentDepth { line += dim("[depth \(depth)] ") }
        line += bar(span, traceStart: traceStart, traceEnd: traceEnd) + " "
        let isError = span.status?.code == .error
        let name = span.name.isEmpty ? "(unnamed)" : quoteIfNeeded(span.name)
        line += isError ? paint(name, "1;31") : bold(name)
        line += " " + UnixTime.duration(span.durationNano)
        line += dim(" \(span.kind) span=\(span.spanID?.description ?? "-")")
        switch placement {
        case .child, .root: break
        case .orphan: line += dim(" parent=\(span.parentSpanID?.description ?? "-") (absent)")
        case .ownParent: line += paint(" (parent is itself)", "33")
        case .cycle: line += paint(" parent=\(span.parentSpanID?.description ?? "-") (parent cycle)", "33")
        }
        if sharedIDCount > 1 { line += paint(" (span ID used by \(sharedIDCount) spans)", "33") }
        if let origin { line += dim(" (\(origin))") }
        if let status = span.status, status.code != .unset || !status.message.isEmpty {
            let text = "status=\(status.code)" + (status.message.isEmpty ? "" : " \"\(escaped(status.message))\"")
            line += " " + (isError ? paint(text, "31") : text)
        }
        var out = line + "\n"
        if showDetails {
            let detailIndent = indent + String(repeating: " ", count: Self.barWidth + 3)
            if !span.attributes.isEmpty { out += detailIndent + dim(attributes(span.attributes)) + "\n" }
            for event in span.events {
                let offset =
                    event.timeUnixNano >= span.startTimeUnixNano
                    ? "+" + UnixTime.duration(event.timeUnixNano - span.startTimeUnixNano) : UnixTime.iso8601(event.timeUnixNano)
                out +=
                    detailIndent + "• \(quoteIfNeeded(event.name)) \(offset)"
                    + (event.attributes.isEmpty ? "" : " " + dim(attributes(event.attributes))) + "\n"
            }
            for link in span.links {
                out +=
                    detailIndent + "→ link trace=\(link.traceID?.description ?? "-") span=\(link.spanID?.description ?? "-")"
                    + (link.attributes.isEmpty ? "" : " " + dim(attributes(link.attributes))) + "\n"
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
        let cells =
            String(repeating: " ", count: first) + String(repeating: "█", count: length)
            + String(repeating: " ", count: width - first - length)
        return "|" + paint(cells, "36") + "|"
    }

    // MARK: - Logs

    private func logLine(_ record: OTLPLogRecord) -> String {
        let time = record.timeUnixNano != 0 ? record.timeUnixNano : record.observedTimeUnixNano
        let severity = record.severityText.isEmpty ? record.severity.description : escaped(record.severityText)
        let padded = severity.count < 5 ? severity + String(repeating: " ", count: 5 - severity.count) : severity
        let severityText: String
        switch record.severity.rawValue {
        case 17...: severityText = paint(padded, "1;31")
        case 13..<17: severityText = paint(padded, "33")
        default: severityText = padded
        }
        var line = "    \(time == 0 ? "(no time)" : UnixTime.iso8601(time)) \(severityText) "
        if !record.eventName.isEmpty { line += bold("[\(escaped(record.eventName))]") + " " }
        switch record.body {
        case .string(let text)?: line += escaped(text)
        case let body?: line += value(body)
        case nil: line += dim("(no body)")
        }
        if let traceID = record.traceID { line += dim(" trace=\(traceID.description)") }
        if let spanID = record.spanID { line += dim(" span=\(spanID.description)") }
        var out = line + "\n"
        if showDetails, !record.attributes.isEmpty {
            out += "      " + dim(attributes(record.attributes)) + "\n"
        }
        return out
    }

    // MARK: - Values

    func attributes(_ attributes: [OTLPAttribute]) -> String {
        attributes.map { "\(quoteIfNeeded($0.key))=\($0.value.map(value) ?? "<none>")" }.joined(separator: " ")
    }

    func value(_ value: OTLPAttributeValue) -> String {
        switch value {
        case .string(let text): return "\"\(escaped(text))\""
        case .bool(let bool): return String(bool)
        case .int(let int): return String(int)
        case .double(let double): return double.isNaN ? "NaN" : String(double)
        case .bytes(let bytes):
            return "0x"
                + bytes.map { byte in String(byte, radix: 16).count == 1 ? "0" + String(byte, radix: 16) : String(byte, radix: 16) }
                .joined()
        case .array(let values): return "[" + values.map(self.value).joined(separator: ", ") + "]"
        case .keyValueList(let list): return "{" + attributes(list) + "}"
        case .empty: return "<empty>"
        }
    }

    /// Control characters (C0, DEL, C1) and quotes escaped (``TerminalText``), without the quotes.
    func escaped(_ text: String) -> String { TerminalText.escaped(text) }

    func quoteIfNeeded(_ text: String) -> String {
        text.isEmpty || text.contains(where: { $0 == " " || $0 == "=" }) || escaped(text) != text ? "\"\(escaped(text))\"" : text
    }
}
