public import OTLPWire

/// An item the pipeline carries: it knows what it counts as and how a batch becomes one request.
public protocol OTLPExportable: Sendable {
    /// The signal whose requests carry the item (what it counts as in ``OTLPTelemetryCounters``): traces or
    /// logs, the signals the pipeline carries.
    static var signal: OTLPSignal { get }
    /// The items of the requests: `OTLPSpan` or `OTLPLogRecord`.
    associatedtype RequestItem: OTLPSignalItem
    /// One request holding `items` under `resource`, grouped by scope in order of first appearance.
    static func request(_ items: [Self], resource: OTLPResource) -> OTLPSignalData<RequestItem>
    /// Whether a value of this item (an attribute, of the item, its scope, events or links, or a log body)
    /// nests arrays and key-value lists more than `levels` deep. The exporter asks before encoding, which
    /// recurses per level: such an item is dropped (`item_too_large`) instead of exhausting its stack.
    func nestsValues(deeperThan levels: Int) -> Bool
    /// Completes work the producer left for later, so that it is done off the application's thread: a span
    /// ended by ``OTLPTracingSpan`` converts its attributes here. The pipeline calls it before an exporter
    /// sees the item, on any thread, possibly more than once: it must do its work once and nothing after.
    /// The default does nothing.
    mutating func prepareForExport()
}

extension OTLPExportable {
    public mutating func prepareForExport() {}
}

extension OTLPExportable {
    /// Nesting of arrays and key-value lists no reader accepts: at least twice this many message levels,
    /// past the readers' largest allowed depth. Exporters drop items nested deeper (`item_too_large`)
    /// before encoding, which recurses per level.
    package static var maxEncodableValueNesting: Int { OTLPDecodingOptions.maxNestingDepthRange.upperBound / 2 }

    /// ``prepareForExport()`` of each of `items`, in place, for the pipeline's worker: a span's attributes in the
    /// Tracing API's form, once converted, are kept in `releases` for an application's thread to free
    /// (``OTLPDeferredReleases``).
    static func prepareForExport(_ items: inout [Self], deferringReleasesTo releases: inout OTLPDeferredReleases) {
        guard Self.self == OTLPScopedSpan.self else {
            for index in items.indices { items[index].prepareForExport() }
            return
        }
        items.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: OTLPScopedSpan.self) { spans in
                for index in spans.indices { spans[index].prepareForExport(deferringReleasesTo: &releases) }
            }
        }
    }

    /// `items` without those whose values nest deeper than ``maxEncodableValueNesting``: those are counted as
    /// dropped (`item_too_large`) in `counters` and reported to `diagnostics`, the line starting with `reporter`.
    package static func droppingTooDeeplyNested(
        _ items: [Self], counters: OTLPTelemetryCounters, reporter: String, diagnostics: (String) -> Void
    ) -> [Self] {
        // Nearly always none: the batch is then passed on as it is, not copied item by item. Read by index, in
        // place (`contains(where:)` copied each item out for its predicate, retaining and releasing every field).
        var anyTooDeep = false
        if Self.self == OTLPScopedSpan.self {
            anyTooDeep = OTLPScopedSpan.anyNestsValues(
                unsafeBitCast(items, to: [OTLPScopedSpan].self), deeperThan: maxEncodableValueNesting)
        } else {
            for index in items.indices where items[index].nestsValues(deeperThan: maxEncodableValueNesting) {
                anyTooDeep = true
                break
            }
        }
        guard anyTooDeep else { return items }
        let encodable = items.filter { !$0.nestsValues(deeperThan: maxEncodableValueNesting) }
        let tooLarge = items.count - encodable.count
        if tooLarge > 0 {
            counters.dropped(tooLarge, signal, .itemTooLarge)
            diagnostics(
                "\(reporter): \(tooLarge) \(signal.noun(tooLarge)) dropped (\(OTLPDropReason.itemTooLarge)): values nested deeper than \(maxEncodableValueNesting) levels"
            )
        }
        return encodable
    }
}
