internal import COTLPProto
internal import COTLPShims
internal import CProtobufC

/// Decodes OTLP protobuf requests (`ExportTraceServiceRequest`, `ExportLogsServiceRequest`) into the model.
///
/// Every message is first scanned without recursion (size, nesting depth, wire format, UTF-8 of string
/// fields, which signal it is), and only then unpacked by protobuf-c. Fields unknown to the schema are
/// skipped. A logs request read as traces (or the reverse) is reported as ``OTLPReadError/Code/wrongKind``
/// rather than accepted as a request full of unknown fields.
public struct OTLPDecoder: Sendable {
    /// The limits every message is checked against before it is unpacked.
    package var options: OTLPDecodingOptions

    /// A decoder that checks messages against `options` (default: the readers' default limits).
    public init(options: OTLPDecodingOptions = .default) {
        self.options = options
    }

    /// Decodes one `ExportTraceServiceRequest` in memory.
    package func decodeTraces(_ bytes: UnsafeRawBufferPointer) throws(OTLPReadError) -> OTLPTracesData {
        try decodeTraces(bytes, arena: ProtobufCArena(minimumChunkSize: Self.arenaChunkSize(for: bytes.count)))
    }

    /// Decodes one `ExportLogsServiceRequest` in memory.
    package func decodeLogs(_ bytes: UnsafeRawBufferPointer) throws(OTLPReadError) -> OTLPLogsData {
        try decodeLogs(bytes, arena: ProtobufCArena(minimumChunkSize: Self.arenaChunkSize(for: bytes.count)))
    }

    /// Decodes with every protobuf-c allocation taken from `arena`, which is reset afterwards (a reader
    /// reuses one arena for all its records: no malloc/free per sub-message, no free_unpacked walk).
    func decodeTraces(_ bytes: UnsafeRawBufferPointer, arena: ProtobufCArena) throws(OTLPReadError) -> OTLPTracesData {
        try decodeRequest(bytes, arena: arena)
    }

    func decodeLogs(_ bytes: UnsafeRawBufferPointer, arena: ProtobufCArena) throws(OTLPReadError) -> OTLPLogsData {
        try decodeRequest(bytes, arena: arena)
    }

    /// Decodes one `ExportMetricsServiceRequest` in memory, under the same checks and merge rules as spans and logs.
    package func decodeMetrics(_ bytes: UnsafeRawBufferPointer) throws(OTLPReadError) -> OTLPMetricsData {
        try decodeMetrics(bytes, arena: ProtobufCArena(minimumChunkSize: Self.arenaChunkSize(for: bytes.count)))
    }

    func decodeMetrics(_ bytes: UnsafeRawBufferPointer, arena: ProtobufCArena) throws(OTLPReadError) -> OTLPMetricsData {
        try decodeRequest(bytes, arena: arena)
    }

    /// A request of any kind: checked, unpacked by protobuf-c and read through the shared envelope.
    @_specialize(where Item == OTLPSpan)
    @_specialize(where Item == OTLPLogRecord)
    @_specialize(where Item == OTLPMetric)
    func decodeRequest<Item: ProtobufCItem>(
        _ bytes: UnsafeRawBufferPointer, arena: ProtobufCArena
    ) throws(OTLPReadError) -> OTLPSignalData<Item> {
        let prepared = try prepare(bytes, kind: Item.requestKind)
        defer { arena.reset() }
        let request = try prepared.withBytes(bytes) { (message) throws(OTLPReadError) in
            try arena.withAllocator { allocator in
                COTLPShims_unpack_request(
                    Item.requestKind.shimsKind, allocator, message.count, message.baseAddress?.assumingMemoryBound(to: UInt8.self))
            }
        }
        guard let request else {
            throw OTLPReadError(
                .malformedProtobuf, "protobuf-c could not unpack the \(Item.requestKind) request", byteOffset: 0, offsetIn: .record)
        }
        return try ProtobufCReader.request(request.pointee)
    }

    /// Unpacked structs take a few times the wire size; start the arena there to avoid regrowth.
    static func arenaChunkSize(for messageBytes: Int) -> Int { max(64 * 1024, messageBytes * 4) }

    /// Decodes one `ExportTraceServiceRequest`.
    public func decodeTraces(_ bytes: some Collection<UInt8>) throws(OTLPReadError) -> OTLPTracesData {
        try ByteCollection.withBytes(bytes) { (buffer) throws(OTLPReadError) in try decodeTraces(buffer) }
    }

    /// Decodes one `ExportLogsServiceRequest`.
    public func decodeLogs(_ bytes: some Collection<UInt8>) throws(OTLPReadError) -> OTLPLogsData {
        try ByteCollection.withBytes(bytes) { (buffer) throws(OTLPReadError) in try decodeLogs(buffer) }
    }

    /// Decodes one `ExportMetricsServiceRequest`.
    public func decodeMetrics(_ bytes: some Collection<UInt8>) throws(OTLPReadError) -> OTLPMetricsData {
        try ByteCollection.withBytes(bytes) { (buffer) throws(OTLPReadError) in try decodeMetrics(buffer) }
    }

    /// Checks a message as `signal` without unpacking it: the same checks as decoding, minus building the
    /// model. Returns the number of spans or log records.
    @discardableResult
    package func check(_ bytes: UnsafeRawBufferPointer, as signal: OTLPSignal) throws(OTLPReadError) -> Int {
        try prepare(bytes, as: signal).items
    }

    /// ``check(_:as:)``, plus the message protobuf-c must unpack: `bytes` itself, or, when a singular message
    /// field occurs more than once, the message with those occurrences merged (as protobuf defines; the
    /// limits are checked again on the merged message).
    func prepare(_ bytes: UnsafeRawBufferPointer, as signal: OTLPSignal) throws(OTLPReadError) -> PreparedMessage {
        try prepare(bytes, kind: OTLPRequestKind(signal))
    }

    /// ``prepare(_:as:)`` for a request of any kind (metrics too).
    func prepare(_ bytes: UnsafeRawBufferPointer, kind signal: OTLPRequestKind) throws(OTLPReadError) -> PreparedMessage {
        try options.validate()
        guard bytes.count <= options.maxRecordBytes else {
            throw OTLPReadError(.recordTooLarge, "message of \(bytes.count) bytes is over the limit of \(options.maxRecordBytes)")
        }
        let declared = scan(bytes, kind: signal.shimsKind)
        // A message over a content limit is what it was declared to be as far as it was read: that limit is the fault.
        // A metrics request can read as traces too (see signalEvidence); read as metrics, only a fault of the wire
        // structure itself (not a bad ID length or UTF-8 deep inside) makes another kind worth naming.
        let contentFault = [COTLPSHIMS_SCAN_BAD_ID_LENGTH, COTLPSHIMS_SCAN_INVALID_UTF8, COTLPSHIMS_SCAN_TOO_DEEP].contains(
            Int(declared.status))
        let overLimit =
            [COTLPSHIMS_SCAN_TOO_LARGE, COTLPSHIMS_SCAN_TOO_MANY_ATTRIBUTES, COTLPSHIMS_SCAN_TOO_MANY_FIELDS].contains(Int(declared.status))
            || (signal == .metrics && contentFault)
        if !overLimit && (Int(declared.status) != COTLPSHIMS_SCAN_OK || declared.unknown_fields > 0) {
            for kind in signal.others {
                let other = scan(bytes, kind: kind.shimsKind)
                if Int(other.status) == COTLPSHIMS_SCAN_OK && other.unknown_fields == 0 {
                    throw OTLPReadError(.wrongKind, "this is a \(kind) request, not \(signal)", byteOffset: 0, offsetIn: .record)
                }
            }
        }
        do {
            try verdict(declared, signal, merged: false)
        } catch  where error.code == .malformedProtobuf && OTLPGzip.isCompressed(bytes) {
            // No request starts so (field 3, wire type 7 does not exist): say what the record more likely is.
            var named = error
            named.message += " (it starts as a gzip member: a record stored gzip-compressed, as a spool with gzip records holds them)"
            throw named
        }
        guard declared.needs_merge != 0 else { return PreparedMessage(items: Int(declared.items), merged: nil) }
        let merged = try merge(bytes, as: signal)
        let rescan = merged.withUnsafeBytes { scan($0, kind: signal.shimsKind) }
        try verdict(rescan, signal, merged: true)
        return PreparedMessage(items: Int(rescan.items), merged: merged)
    }

    /// The message with repeated singular message fields merged (see `COTLPShims_merge`).
    private func merge(_ bytes: UnsafeRawBufferPointer, as signal: OTLPRequestKind) throws(OTLPReadError) -> [UInt8] {
        let kind = signal.shimsKind
        var failed = false
        let merged = [UInt8](unsafeUninitializedCapacity: max(bytes.count, 1)) { buffer, initialized in
            let written = COTLPShims_merge(
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, Int32(kind), buffer.baseAddress, buffer.count)
            failed = written < 0 || written > buffer.count  // (size_t)-1 is -1 here
            initialized = failed ? 0 : written
        }
        if failed {
            throw OTLPReadError(
                .malformedProtobuf, "could not merge the repeated message fields of this \(signal) request", byteOffset: 0,
                offsetIn: .record)
        }
        return merged
    }

    /// Throws the error a scan result stands for; nothing when it is OK.
    private func verdict(_ result: COTLPShims_ScanResult, _ signal: OTLPRequestKind, merged: Bool) throws(OTLPReadError) {
        // Offsets into a merged message mean nothing to the reader of the file: those faults are at offset 0.
        let offset = merged ? 0 : Int(result.error_offset)
        let after = merged ? " (after merging repeated message fields, as protobuf defines)" : ""
        switch Int(result.status) {
        case COTLPSHIMS_SCAN_OK:
            return
        case COTLPSHIMS_SCAN_INVALID_UTF8:
            throw OTLPReadError(.malformedProtobuf, "string field is not valid UTF-8", byteOffset: offset, offsetIn: .record)
        case COTLPSHIMS_SCAN_TOO_DEEP:
            throw OTLPReadError(
                .nestingTooDeep, "message nesting deeper than \(options.maxNestingDepth) levels\(after)",
                byteOffset: offset, offsetIn: .record)
        case COTLPSHIMS_SCAN_TOO_MANY_ATTRIBUTES:
            let item = result.error_message.map { String(cString: $0) } ?? "item"
            throw OTLPReadError(
                .tooManyAttributes, "\(OTLPReadError.withArticle(item)) has more than \(options.maxAttributesPerItem) attributes\(after)",
                byteOffset: offset, offsetIn: .record)
        case COTLPSHIMS_SCAN_TOO_LARGE:
            throw OTLPReadError(
                .recordTooLarge,
                "decoding this message would take more than \(options.maxDecodedBytes) bytes of memory (maxDecodedBytes)\(after)",
                byteOffset: offset, offsetIn: .record)
        case COTLPSHIMS_SCAN_BAD_ID_LENGTH:
            let field = result.error_message.map { String(cString: $0) } ?? "ID"
            let expected = field.hasSuffix("trace_id") ? 16 : 8
            throw OTLPReadError(
                .malformedProtobuf, "\(field) is \(result.error_length) bytes, expected \(expected)",
                byteOffset: offset, offsetIn: .record)
        case COTLPSHIMS_SCAN_TOO_MANY_FIELDS:
            throw OTLPReadError(
                .recordTooLarge, "a message ending here has more than 134,217,712 fields, more than protobuf-c unpacks\(after)",
                byteOffset: offset, offsetIn: .record)
        case COTLPSHIMS_SCAN_UNSUPPORTED:
            throw OTLPReadError(
                .malformedProtobuf, "group or mismatched wire type for a known field (not readable by protobuf-c)",
                byteOffset: offset, offsetIn: .record)
        default:
            throw OTLPReadError(.malformedProtobuf, "not a valid \(signal) request", byteOffset: offset, offsetIn: .record)
        }
    }

    /// Which signal `bytes` is, judged by the schema alone: the one it decodes as (with the fewest unknown
    /// fields; log records rather than spans without IDs; metrics when it reads as a metrics request with
    /// metrics and as no other signal, or as spans without times); `nil` when it decodes as none, or holds no
    /// spans, log records or metrics.
    public func detectSignal(_ bytes: some Collection<UInt8>) -> OTLPSignal? {
        ByteCollection.withBytes(bytes) { buffer in detectSignal(buffer) }
    }

    /// ``detectSignal(_:)`` on bytes in memory.
    package func detectSignal(_ bytes: UnsafeRawBufferPointer) -> OTLPSignal? {
        switch signalEvidence(bytes) {
        case .decisive(let signal), .leaning(let signal): signal
        case .silent, .invalid, .unsupported: nil
        }
    }

    /// What `bytes` say about their signal (see ``OTLPSignalEvidence``).
    func signalEvidence(_ bytes: UnsafeRawBufferPointer) -> OTLPSignalEvidence {
        // The attribute and memory limits are left to decoding, which reports them as such.
        let traces = scan(bytes, as: .traces, applyingContentLimits: false)
        let logs = scan(bytes, as: .logs, applyingContentLimits: false)
        let tracesOK = Int(traces.status) == COTLPSHIMS_SCAN_OK
        let logsOK = Int(logs.status) == COTLPSHIMS_SCAN_OK
        if tracesOK && !logsOK {
            // A metrics request can read as traces too (see `couldBeMetricsReadAsTraces`): a request that scans
            // as both is metrics when its "spans" do not decode or have no times, and it decodes as metrics
            // whose names look like names (regression: a metric with no data, or a 16-byte name, was a span).
            let metrics = scan(bytes, kind: Int32(COTLPSHIMS_KIND_METRICS), applyingContentLimits: false)
            if Int(metrics.status) == COTLPSHIMS_SCAN_OK && metrics.items > 0 && metrics.unknown_fields <= traces.unknown_fields,
                (try? decodeTraces(bytes))?.couldBeMetricsReadAsTraces ?? true, holdsMetricNames(bytes)
            {
                return .decisive(.metrics)
            }
        }
        switch (tracesOK, logsOK) {
        case (true, false): return .decisive(.traces)
        case (false, true): return .decisive(.logs)
        case (false, false):
            // Not traces nor logs: an OTLP metrics request (protobuf carries no signal of its own).
            let metrics = scan(bytes, kind: Int32(COTLPSHIMS_KIND_METRICS), applyingContentLimits: false)
            if Int(metrics.status) == COTLPSHIMS_SCAN_OK && metrics.items > 0 && holdsMetricNames(bytes) {
                return .decisive(.metrics)
            }
            // Readable as none. The likelier signal is the one whose scan matched the record field for field
            // up to a fault in a field's content (an ID's length, UTF-8, nesting), over one that met a field
            // of the wrong wire type or broken framing (regression: a span with a 5-byte trace ID, read as
            // traces up to that ID, was called "not a valid logs request"); then the one that read furthest.
            // Metrics whose scan reads to the end and whose decoding fails (a fault decoding finds: a limit, an
            // ID's length) rank first (regression: metrics with a damaged exemplar ID were worded as a span's
            // damage). Metrics that decode but whose names look like no metric's (just above) are no evidence
            // at all: a damaged log record can read so (regression: accepted as an unnamed histogram).
            func rank(_ result: COTLPShims_ScanResult) -> (contentFault: Bool, reach: Int) {
                let status = Int(result.status)
                let contentFault =
                    [COTLPSHIMS_SCAN_INVALID_UTF8, COTLPSHIMS_SCAN_BAD_ID_LENGTH, COTLPSHIMS_SCAN_TOO_DEEP].contains(status)
                    && result.unknown_fields == 0
                return (contentFault, Int(result.error_offset))
            }
            let metricsRank =
                Int(metrics.status) == COTLPSHIMS_SCAN_OK
                ? (metrics.items > 0 && (try? decodeMetrics(bytes)) == nil ? (true, bytes.count + 1) : (false, 0)) : rank(metrics)
            let ranks: [(signal: OTLPSignal, rank: (contentFault: Bool, reach: Int))] = [
                (.traces, rank(traces)), (.logs, rank(logs)), (.metrics, metricsRank),
            ]
            // Ties go to the earlier of traces, logs and metrics.
            let likelier = ranks.dropFirst().reduce(ranks[0]) { best, next in
                (next.rank.contentFault ? 1 : 0, next.rank.reach) > (best.rank.contentFault ? 1 : 0, best.rank.reach) ? next : best
            }
            return .invalid(likelier: likelier.signal)
        case (true, true):
            if traces.unknown_fields != logs.unknown_fields {
                return .leaning(traces.unknown_fields < logs.unknown_fields ? .traces : .logs)
            }
            // Equal readings: a span with IDs cannot read as a log record, so these spans would have none.
            if traces.items > 0 || logs.items > 0 { return .leaning(.logs) }
            return .silent(isEmpty: bytes.isEmpty || holdsOnlyEmptyEnvelopes(bytes))
        }
    }

    /// `true` when `bytes` decode as metrics whose names all look like metric names (printable ASCII, no
    /// spaces): a damaged span (a trace ID of 5 bytes) can read as a metric too, and is not taken for one.
    private func holdsMetricNames(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let metrics = try? decodeMetrics(bytes) else { return false }
        return metrics.resourceGroups.allSatisfy {
            $0.scopeGroups.allSatisfy {
                $0.items.allSatisfy { !$0.name.isEmpty && $0.name.utf8.allSatisfy { (0x21...0x7E).contains($0) } }
            }
        }
    }

    /// `true` when a request without items holds nothing either signal would show differently: resources and
    /// scopes all empty, no schema URLs (`0a 00`, one empty ResourceSpans or ResourceLogs, is such a request).
    private func holdsOnlyEmptyEnvelopes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // Both signals share the envelope's field numbers, so reading it as traces reads it as logs too.
        guard let data = try? decodeTraces(bytes) else { return false }
        let emptyScope = OTLPInstrumentationScope(name: "")
        return data.resourceGroups.allSatisfy { group in
            (group.resource ?? OTLPResource()) == OTLPResource() && group.schemaURL.isEmpty
                && group.scopeGroups.allSatisfy { ($0.scope ?? emptyScope) == emptyScope && $0.schemaURL.isEmpty }
        }
    }

    /// The pre-scan. The nesting limit always applies (protobuf-c's stack depends on it); the attribute and
    /// decoded-size limits only when `applyingContentLimits`. Limits are clamped to their documented ranges
    /// here too, for the paths that do not validate (signal detection).
    private func scan(_ bytes: UnsafeRawBufferPointer, as signal: OTLPSignal, applyingContentLimits: Bool = true) -> COTLPShims_ScanResult {
        scan(bytes, kind: signal.shimsKind, applyingContentLimits: applyingContentLimits)
    }

    /// The pre-scan as a shims kind: traces, logs, or metrics (read only for their evidence).
    private func scan(_ bytes: UnsafeRawBufferPointer, kind: Int32, applyingContentLimits: Bool = true) -> COTLPShims_ScanResult {
        var result = COTLPShims_ScanResult()
        func clamped(_ value: Int, _ range: ClosedRange<Int>) -> Int { min(max(value, range.lowerBound), range.upperBound) }
        withUnsafePointer(to: Self.modelCosts) { costs in
            var limits = COTLPShims_ScanLimits(
                max_depth: clamped(options.maxNestingDepth, OTLPDecodingOptions.maxNestingDepthRange),
                max_attributes: applyingContentLimits
                    ? clamped(options.maxAttributesPerItem, OTLPDecodingOptions.maxAttributesPerItemRange) : .max,
                max_unpacked_bytes: applyingContentLimits
                    ? clamped(options.maxDecodedBytes, OTLPDecodingOptions.maxDecodedBytesRange) : .max,
                model_costs: costs)
            COTLPShims_scan(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, Int32(kind), &limits, &result)
        }
        return result
    }

    /// How the pre-scan (without content limits) reads `bytes` as `signal`: its items and unknown fields, or
    /// `nil` when it is not a valid message of that signal.
    func scanSummary(_ bytes: UnsafeRawBufferPointer, as signal: OTLPSignal) -> (items: Int, unknownFields: Int)? {
        scanSummary(bytes, asKind: OTLPRequestKind(signal))
    }

    /// ``scanSummary(_:as:)`` for a request of any kind (metrics too).
    func scanSummary(_ bytes: UnsafeRawBufferPointer, asKind kind: OTLPRequestKind) -> (items: Int, unknownFields: Int)? {
        let result = scan(bytes, kind: kind.shimsKind, applyingContentLimits: false)
        return Int(result.status) == COTLPSHIMS_SCAN_OK ? (Int(result.items), Int(result.unknown_fields)) : nil
    }

    /// The pre-scan's decoded-memory estimate (protobuf-c's structs plus the Swift model, what
    /// ``OTLPDecodingOptions/maxDecodedBytes`` limits) and deepest message level of `bytes` read as `signal`;
    /// `nil` when the message does not scan as that signal.
    func scanEstimate(_ bytes: UnsafeRawBufferPointer, as signal: OTLPSignal) -> (decodedBytes: Int, depth: Int)? {
        let result = scan(bytes, as: signal, applyingContentLimits: false)
        guard Int(result.status) == COTLPSHIMS_SCAN_OK else { return nil }
        return (Int(result.unpacked_bytes) + Int(result.model_bytes), Int(result.max_depth_seen))
    }

    /// What protobuf-c would allocate to unpack `bytes` as `signal`, estimated by the pre-scan; `nil` when
    /// the message does not scan as that signal.
    func estimatedDecodedBytes(_ bytes: UnsafeRawBufferPointer, as signal: OTLPSignal) -> Int? {
        let result = scan(bytes, as: signal, applyingContentLimits: false)
        return Int(result.status) == COTLPSHIMS_SCAN_OK ? Int(result.unpacked_bytes) : nil
    }
}

extension OTLPDecoder {
    /// ``check(_:as:)``, then a real unpack by protobuf-c into `arena` (reset at once): what validation needs.
    func checkAndUnpack(_ bytes: UnsafeRawBufferPointer, as signal: OTLPSignal, arena: ProtobufCArena) throws(OTLPReadError) -> Int {
        let prepared = try prepare(bytes, as: signal)
        defer { arena.reset() }
        try prepared.withBytes(bytes) { (message) throws(OTLPReadError) in try unpackPrepared(message, as: signal, arena: arena) }
        return prepared.items
    }

    /// protobuf-c's unpack into `arena`, left there until the caller resets it (so the bytes it took can be
    /// compared with the pre-scan's estimate). Checks (and merges) first.
    func unpack(_ bytes: UnsafeRawBufferPointer, as signal: OTLPSignal, arena: ProtobufCArena) throws(OTLPReadError) {
        let prepared = try prepare(bytes, as: signal)
        try prepared.withBytes(bytes) { (message) throws(OTLPReadError) in try unpackPrepared(message, as: signal, arena: arena) }
    }

    private func unpackPrepared(_ bytes: UnsafeRawBufferPointer, as signal: OTLPSignal, arena: ProtobufCArena) throws(OTLPReadError) {
        let data = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let unpacked: Bool = try arena.withAllocator { allocator in
            switch signal {
            case .traces:
                opentelemetry__proto__collector__trace__v1__export_trace_service_request__unpack(allocator, bytes.count, data) != nil
            case .logs: opentelemetry__proto__collector__logs__v1__export_logs_service_request__unpack(allocator, bytes.count, data) != nil
            case .metrics:
                opentelemetry__proto__collector__metrics__v1__export_metrics_service_request__unpack(allocator, bytes.count, data) != nil
            }
        }
        guard unpacked else {
            throw OTLPReadError(.malformedProtobuf, "protobuf-c could not unpack the \(signal) request", byteOffset: 0, offsetIn: .record)
        }
    }
}
