import OTLPWire

/// Holds the last records read, up to ``capacity``, before `print` draws them, so a trace written over several
/// records is drawn as one tree: when the oldest record is drawn, the spans of its traces that later held
/// records carry are drawn in the same tree (marked with their record), and those records say where their
/// spans were drawn instead of drawing pieces with `parent=… (absent)`.
///
/// Memory is bounded by ``capacity`` records (each within the reader's record size limit); spans of a trace
/// that arrive after its first record has left the window are drawn as a tree of their own. Records are
/// drawn in the order read, log records included.
final class TraceWindow {
    /// The most records held; `Int.max` holds every record (`--trace-id`: the whole trace, whatever its size).
    let capacity: Int
    private var renderer: TreeRenderer
    private let write: (String) -> Void
    private var held: [Held] = []
    /// The first record of ``held`` not drawn yet.
    private var head = 0

    private struct Held {
        let file: String
        /// The record, its payload as filtered.
        var record: OTLPRecord
        let traceIDs: Set<OTLPTraceID>
        /// Traces of this record whose spans were drawn with an earlier record: where.
        var drawnWith: [OTLPTraceID: String] = [:]
    }

    init(capacity: Int, renderer: TreeRenderer, write: @escaping (String) -> Void) {
        self.capacity = max(capacity, 1)
        self.renderer = renderer
        self.write = write
    }

    /// Takes a record; draws the oldest one when ``capacity`` records are held (it and the ones after it).
    func add(file: String, record: OTLPRecord, payload: OTLPPayload) {
        var traceIDs = Set<OTLPTraceID>()
        if case .traces(let data) = payload {
            for group in data.resourceGroups {
                for scope in group.scopeGroups { for span in scope.items { if let id = span.traceID { traceIDs.insert(id) } } }
            }
        }
        var record = record
        record.payload = payload
        held.append(Held(file: file, record: record, traceIDs: traceIDs))
        while held.count - head >= capacity { drawOldest() }
    }

    /// Draws every record held.
    func flush() {
        while head < held.count { drawOldest() }
    }

    private func drawOldest() {
        let first = held[head]
        held[head].record.payload = .traces(OTLPSignalData())  // memory back now, not at the next compaction
        head += 1
        if head > 64 && head * 2 > held.count {
            held.removeFirst(head)
            head = 0
        }
        var later: [OTLPTraceID: [TreeRenderer.LaterSpan]] = [:]
        let wanted = first.traceIDs.subtracting(first.drawnWith.keys)
        if !wanted.isEmpty {
            let place = "\(displayName(first.file)) record \(first.record.index)"
            for index in head..<held.count where !held[index].traceIDs.isDisjoint(with: wanted) {
                guard case .traces(let data) = held[index].record.payload else { continue }
                let origin =
                    "record \(held[index].record.index)" + (held[index].file == first.file ? "" : " of \(displayName(held[index].file))")
                for group in data.resourceGroups {
                    for scope in group.scopeGroups {
                        for span in scope.items {
                            guard let id = span.traceID, wanted.contains(id) else { continue }
                            later[id, default: []].append(TreeRenderer.LaterSpan(span: span, origin: origin))
                            held[index].drawnWith[id] = place
                        }
                    }
                }
            }
        }
        write(
            renderer.render(
                first.record.payload, file: displayName(first.file), record: first.record, laterSpans: later, drawnWith: first.drawnWith))
    }
}
