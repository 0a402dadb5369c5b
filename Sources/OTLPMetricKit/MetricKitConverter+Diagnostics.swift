public import OTLPWire

extension MetricKitConverter {
    /// What a diagnostic payload becomes: one span over the reporting period, and one log record per
    /// diagnostic (in the span's trace).
    public struct DiagnosticConversion: Sendable {
        /// `MXDiagnosticPayload`, over the reporting period.
        public var span: OTLPSpan
        /// One per diagnostic, in the order of the kinds, then of the payload.
        public var logRecords: [OTLPLogRecord]
        /// Values skipped by tolerant parsing (wrong type or unusable value), with their JSON paths: the
        /// first 100, then one entry `$: N more values skipped`.
        public var skippedValues: [MetricKitConversionError] = []
        /// How many values were skipped in all.
        public var skippedValueCount = 0
    }

    /// The diagnostic kinds, their payload arrays and names.
    static let diagnosticKinds: [(array: String, kind: String)] = [
        ("crashDiagnostics", "crash"), ("hangDiagnostics", "hang"), ("cpuExceptionDiagnostics", "cpu_exception"),
        ("diskWriteExceptionDiagnostics", "disk_write_exception"), ("appLaunchDiagnostics", "app_launch"),
    ]

    /// The message level of a span's or log record's attribute value (request 0, resource spans/logs 1,
    /// scope 2, span/log record 3, key/value 4, value 5), as readers count it.
    static let attributeValueLevel = 5

    /// Converts `MXDiagnosticPayload.jsonRepresentation()`: an `MXDiagnosticPayload` span from
    /// `timeStampBegin` to `timeStampEnd`, and one log record per diagnostic at the end of the period (when
    /// it happened within the period is not known), with `metrickit.diagnostic.name`, the namespaced
    /// attributes of its kind, and OpenTelemetry's `exception.*` where they apply.
    package func convertDiagnosticPayload(json: [UInt8]) throws(MetricKitConversionError) -> DiagnosticConversion {
        try convertDiagnostic(try parse(json, notes: MetricKitConversionNotes()))
    }

    func convertDiagnostic(_ payload: MetricKitJSON) throws(MetricKitConversionError) -> DiagnosticConversion {
        let (start, end, beginText, endText) = try period(payload)
        var span = OTLPSpan(
            traceID: idGenerator.newTraceID(), spanID: idGenerator.newSpanID(), name: "MXDiagnosticPayload", kind: .internal,
            startTimeUnixNano: start, endTimeUnixNano: end,
            attributes: [
                beginText.map { OTLPAttribute("metrickit.timestamp_begin", .string($0)) },
                endText.map { OTLPAttribute("metrickit.timestamp_end", .string($0)) },
            ].compactMap { $0 })
        var records: [OTLPLogRecord] = []
        var counts: [(String, Int)] = []
        for (arrayKey, kind) in Self.diagnosticKinds {
            let entries = payload.array(arrayKey) ?? []
            var converted = 0
            for (index, entry) in entries.enumerated() {
                let notesBefore = payload.notes.mark
                guard let diagnostic = MetricKitJSON.element(entry, path: "$.\(arrayKey)[\(index)]", notes: payload.notes) else { continue }
                var record = try logRecord(diagnostic, kind: kind, at: end, notesSince: notesBefore)
                record.traceID = span.traceID
                record.spanID = span.spanID
                records.append(record)
                converted += 1
            }
            counts.append((kind, converted))
        }
        for (kind, count) in counts where count > 0 {
            span.attributes.append(OTLPAttribute("metrickit.diagnostic.\(kind)_count", .int(Int64(count))))
        }
        span.attributes += payload.notes.attributes()
        return DiagnosticConversion(
            span: span, logRecords: records, skippedValues: payload.notes.skippedValues(), skippedValueCount: payload.notes.count)
    }

    private func logRecord(
        _ diagnostic: MetricKitJSON, kind: String, at time: UInt64, notesSince mark: MetricKitConversionNotes.Mark
    ) throws(MetricKitConversionError) -> OTLPLogRecord {
        var attributes = AttributeList()
        attributes.add("metrickit.diagnostic.name", .string(kind))
        let prefix = "metrickit.diagnostic.\(kind)"
        let metadata = diagnostic.object("diagnosticMetaData")
        let kindKeys: Set<String> = [
            "exceptionType", "exceptionCode", "signal", "terminationReason", "virtualMemoryRegionInfo", "objectiveCexceptionReason",
            "hangDuration", "totalCPUTime", "totalSampledTime", "writesCaused", "launchDuration", "signpostData",
        ]
        if let metadata { Self.passMetadata(metadata, skipping: kindKeys, into: &attributes) }
        var severity = OTLPSeverity.warn
        var body: String
        var exceptionType: String?
        var exceptionMessage: String?
        var stacktracePrefix = prefix
        switch kind {
        case "crash":
            severity = .fatal
            stacktracePrefix = "\(prefix).exception"
            var machName: String?
            var signalName: String?
            if let metadata {
                if let type = metadata.integer("exceptionType") {
                    let mach = DarwinExceptionNames.mach(type)
                    machName = mach.name
                    attributes.add("\(prefix).exception.mach_exception.type", .int(type))
                    attributes.add("\(prefix).exception.mach_exception.name", .string(mach.name))
                    attributes.add("\(prefix).exception.mach_exception.description", .string(mach.description))
                }
                if let code = metadata.integer("exceptionCode") { attributes.add("\(prefix).exception.code", .int(code)) }
                if let signal = metadata.integer("signal") {
                    let named = DarwinExceptionNames.signal(signal)
                    signalName = named.name
                    attributes.add("\(prefix).exception.signal", .int(signal))
                    attributes.add("\(prefix).exception.signal.name", .string(named.name))
                    attributes.add("\(prefix).exception.signal.description", .string(named.description))
                }
                let terminationReason = metadata.string("terminationReason")
                if let terminationReason { attributes.add("\(prefix).exception.termination_reason", .string(terminationReason)) }
                if let region = metadata.string("virtualMemoryRegionInfo") {
                    attributes.add("\(prefix).exception.virtual_memory_region_info", .string(region))
                }
                if let objc = metadata.object("objectiveCexceptionReason") {
                    let message = objc.string("composedMessage"), name = objc.string("exceptionName")
                    if let message { attributes.add("\(prefix).exception.objc.message", .string(message)) }
                    if let type = objc.string("exceptionType") { attributes.add("\(prefix).exception.objc.type", .string(type)) }
                    if let name { attributes.add("\(prefix).exception.objc.name", .string(name)) }
                    if let className = objc.string("className") { attributes.add("\(prefix).exception.objc.classname", .string(className)) }
                    exceptionType = name
                    exceptionMessage = message
                }
                if exceptionMessage == nil { exceptionMessage = terminationReason }
            }
            exceptionType = exceptionType ?? machName ?? signalName
            body = [machName, signalName.map { "(\($0))" }].compactMap { $0 }.joined(separator: " ")
            if body.isEmpty { body = "Crash" }
            if exceptionMessage == nil, let machName {
                exceptionMessage = DarwinExceptionNames.machExceptions.first { $0.value.name == machName }?.value.description
            }
        case "hang":
            body = "Application hang"
            stacktracePrefix = "\(prefix).exception"
            if let metadata { try attributes.measurement(metadata, "hangDuration", "\(prefix).hang_duration") }
            if let hangType = diagnostic.string("hangType") { attributes.add("\(prefix).hang_type", .string(hangType)) }
        case "cpu_exception":
            body = "CPU resource exception"
            if let metadata {
                try attributes.measurement(metadata, "totalCPUTime", "\(prefix).total_cpu_time")
                try attributes.measurement(metadata, "totalSampledTime", "\(prefix).total_sampled_time")
            }
        case "disk_write_exception":
            body = "Disk write exception"
            if let metadata { try attributes.measurement(metadata, "writesCaused", "\(prefix).total_writes_caused") }
        default:
            body = "Slow app launch"
            if let metadata { try attributes.measurement(metadata, "launchDuration", "\(prefix).launch_duration") }
        }
        if let signposts = metadata?.array("signpostData"), !signposts.isEmpty {
            let path = metadata!.childPath("signpostData")
            attributes.add(
                "\(prefix).signposts",
                .array(
                    signposts.enumerated().map { index, element in
                        Self.attributeValue(
                            element, level: Self.attributeValueLevel + 2, path: "\(path)[\(index)]", notes: diagnostic.notes)
                    }))
        }
        if let treeValue = diagnostic.value("callStackTree"),
            let tree = try MetricKitCallStackTree(treeValue, path: diagnostic.childPath("callStackTree"), notes: diagnostic.notes)
        {
            let key = "\(stacktracePrefix).stacktrace_json"
            if let (json, omittedFrames, omittedBytes) = tree.flatJSON(maxBytes: options.maxStacktraceJSONBytes) {
                attributes.add(key, .string(json))
                if omittedFrames > 0 || omittedBytes > 0 {
                    attributes.add("\(key)_omitted_frames", .int(Int64(omittedFrames)))
                    attributes.add("\(key)_truncated_bytes", .int(Int64(omittedBytes)))
                }
            } else {
                let frames = tree.threads.reduce(0) { $0 + $1.frames.count }
                attributes.add("\(key)_omitted_frames", .int(Int64(frames)))
            }
            let (frames, omitted) = tree.backtrace()
            if !frames.isEmpty { attributes.add("exception.stacktrace", .string(MetricKitCallStackTree.format(frames, omitted: omitted))) }
        }
        if let exceptionType { attributes.add("exception.type", .string(exceptionType)) }
        if let exceptionMessage { attributes.add("exception.message", .string(exceptionMessage)) }
        let (bounded, dropped) = attributes.bounded(then: diagnostic.notes.attributes(since: mark))
        return OTLPLogRecord(
            timeUnixNano: time, observedTimeUnixNano: time, severity: severity, severityText: severity.description,
            body: .string(body), attributes: bounded, eventName: kind == "crash" ? "app.crash" : "metrickit.diagnostic.\(kind)",
            droppedAttributesCount: dropped)
    }

    /// A JSON value as an attribute value whose `AnyValue` message sits at message level `level`: objects
    /// become key/value lists, arrays arrays. A value whose nesting would go past what readers accept by
    /// default (`OTLPDecodingOptions.default.maxNestingDepth`: an array takes 2 levels, a key/value list 3)
    /// is kept as its compact JSON text instead, and noted.
    static func attributeValue(_ value: JSONValue, level: Int, path: String, notes: MetricKitConversionNotes) -> OTLPAttributeValue {
        let maxLevel = OTLPDecodingOptions.default.maxNestingDepth
        switch value {
        case .null: return .empty
        case .bool(let bool): return .bool(bool)
        case .number(let text): return number(text)
        case .string(let text): return .string(text)
        case .array(let elements):
            guard level + 2 <= maxLevel else { break }
            return .array(elements.enumerated().map { attributeValue($1, level: level + 2, path: "\(path)[\($0)]", notes: notes) })
        case .object(let members):
            guard level + 3 <= maxLevel else { break }
            return .keyValueList(
                members.map { OTLPAttribute($0.0, attributeValue($0.1, level: level + 3, path: "\(path).\($0.0)", notes: notes)) })
        }
        notes.skip(path, "nested deeper than OTLP readers accept (\(maxLevel) message levels), kept as JSON text")
        return .string(value.jsonText)
    }
}
