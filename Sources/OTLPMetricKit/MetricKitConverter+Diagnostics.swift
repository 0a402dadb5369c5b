import OTLPTelemetry
public import OTLPWire

extension MetricKitConverter {
    /// What a diagnostic payload becomes: one span over the reporting period, and one log record per
    /// diagnostic (in the span's trace).
    public struct DiagnosticConversion: Sendable {
        public var span: OTLPSpan
        public var logRecords: [OTLPLogRecord]
    }

    /// The diagnostic kinds, their payload arrays and names.
    static let diagnosticKinds: [(array: String, kind: String)] = [
        ("crashDiagnostics", "crash"), ("hangDiagnostics", "hang"), ("cpuExceptionDiagnostics", "cpu_exception"),
        ("diskWriteExceptionDiagnostics", "disk_write_exception"), ("appLaunchDiagnostics", "app_launch"),
    ]

    /// Converts `MXDiagnosticPayload.jsonRepresentation()`: an `MXDiagnosticPayload` span from
    /// `timeStampBegin` to `timeStampEnd`, and one log record per diagnostic at the end of the period (when
    /// it happened within the period is not known), with `metrickit.diagnostic.name`, the namespaced
    /// attributes of its kind, and OpenTelemetry's `exception.*` where they apply.
    public func convertDiagnosticPayload(json: [UInt8]) throws(MetricKitConversionError) -> DiagnosticConversion {
        let payload = try MetricKitJSON.parse(json)
        let (start, end) = try period(payload)
        let span = OTLPSpan(
            traceID: idGenerator.newTraceID(), spanID: idGenerator.newSpanID(), name: "MXDiagnosticPayload", kind: .internal,
            startTimeUnixNano: start, endTimeUnixNano: end,
            attributes: [try payload.string("timeStampBegin").map { OTLPAttribute("metrickit.timestamp_begin", .string($0)) },
                         try payload.string("timeStampEnd").map { OTLPAttribute("metrickit.timestamp_end", .string($0)) }].compactMap { $0 })
        var records: [OTLPLogRecord] = []
        var counts: [(String, Int)] = []
        for (arrayKey, kind) in Self.diagnosticKinds {
            let entries = try payload.array(arrayKey) ?? []
            counts.append((kind, entries.count))
            for (index, entry) in entries.enumerated() {
                guard case .object(let members) = entry else {
                    throw MetricKitConversionError(path: "$.\(arrayKey)[\(index)]", message: "expected an object")
                }
                let diagnostic = MetricKitJSON(members: members, path: "$.\(arrayKey)[\(index)]")
                var record = try logRecord(diagnostic, kind: kind, at: end)
                record.traceID = span.traceID
                record.spanID = span.spanID
                records.append(record)
            }
        }
        var payloadSpan = span
        for (kind, count) in counts where count > 0 { payloadSpan.attributes.append(OTLPAttribute("metrickit.diagnostic.\(kind)_count", .int(Int64(count)))) }
        return DiagnosticConversion(span: payloadSpan, logRecords: records)
    }

    private func logRecord(_ diagnostic: MetricKitJSON, kind: String, at time: UInt64) throws(MetricKitConversionError) -> OTLPLogRecord {
        var attributes = AttributeList()
        attributes.add("metrickit.diagnostic.name", .string(kind))
        let prefix = "metrickit.diagnostic.\(kind)"
        let metadata = try diagnostic.object("diagnosticMetaData")
        let kindKeys: Set<String> = [
            "exceptionType", "exceptionCode", "signal", "terminationReason", "virtualMemoryRegionInfo", "objectiveCexceptionReason",
            "hangDuration", "totalCPUTime", "totalSampledTime", "writesCaused", "launchDuration", "signpostData",
        ]
        if let metadata { try Self.passMetadata(metadata, skipping: kindKeys, into: &attributes) }
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
                if let type = try metadata.integer("exceptionType") {
                    let mach = DarwinExceptionNames.mach(type)
                    machName = mach.name
                    attributes.add("\(prefix).exception.mach_exception.type", .int(type))
                    attributes.add("\(prefix).exception.mach_exception.name", .string(mach.name))
                    attributes.add("\(prefix).exception.mach_exception.description", .string(mach.description))
                }
                if let code = try metadata.integer("exceptionCode") { attributes.add("\(prefix).exception.code", .int(code)) }
                if let signal = try metadata.integer("signal") {
                    let named = DarwinExceptionNames.signal(signal)
                    signalName = named.name
                    attributes.add("\(prefix).exception.signal", .int(signal))
                    attributes.add("\(prefix).exception.signal.name", .string(named.name))
                    attributes.add("\(prefix).exception.signal.description", .string(named.description))
                }
                if let reason = try metadata.string("terminationReason") { attributes.add("\(prefix).exception.termination_reason", .string(reason)) }
                if let region = try metadata.string("virtualMemoryRegionInfo") {
                    attributes.add("\(prefix).exception.virtual_memory_region_info", .string(region))
                }
                if let objc = try metadata.object("objectiveCexceptionReason") {
                    if let message = try objc.string("composedMessage") { attributes.add("\(prefix).exception.objc.message", .string(message)) }
                    if let type = try objc.string("exceptionType") { attributes.add("\(prefix).exception.objc.type", .string(type)) }
                    if let name = try objc.string("exceptionName") { attributes.add("\(prefix).exception.objc.name", .string(name)) }
                    if let className = try objc.string("className") { attributes.add("\(prefix).exception.objc.classname", .string(className)) }
                    exceptionType = try objc.string("exceptionName")
                    exceptionMessage = try objc.string("composedMessage")
                }
                if exceptionMessage == nil { exceptionMessage = try metadata.string("terminationReason") }
            }
            exceptionType = exceptionType ?? machName ?? signalName
            body = [machName, signalName.map { "(\($0))" }].compactMap { $0 }.joined(separator: " ")
            if body.isEmpty { body = "Crash" }
            if exceptionMessage == nil, let machName { exceptionMessage = DarwinExceptionNames.machExceptions.first { $0.value.name == machName }?.value.description }
        case "hang":
            body = "Application hang"
            stacktracePrefix = "\(prefix).exception"
            if let metadata { try attributes.measurement(metadata, "hangDuration", "\(prefix).hang_duration") }
            if let hangType = try diagnostic.string("hangType") { attributes.add("\(prefix).hang_type", .string(hangType)) }
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
        if let signposts = try metadata?.array("signpostData"), !signposts.isEmpty {
            attributes.add("\(prefix).signposts", .array(signposts.map(Self.attributeValue)))
        }
        if let treeValue = diagnostic.value("callStackTree") {
            guard let tree = MetricKitCallStackTree(treeValue) else {
                throw MetricKitConversionError(path: diagnostic.childPath("callStackTree"), message: "expected an object")
            }
            var json = tree.value.jsonText
            let limit = options.maxStacktraceJSONBytes
            if json.utf8.count > limit {
                var cut = json.utf8.index(json.utf8.startIndex, offsetBy: limit)
                while cut > json.utf8.startIndex && !json.utf8[cut...].isEmpty && (json.utf8[cut] & 0xC0) == 0x80 { cut = json.utf8.index(before: cut) }
                let truncated = json.utf8.count - json.utf8.distance(from: json.utf8.startIndex, to: cut)
                json = String(json.utf8[..<cut])!
                attributes.add("\(stacktracePrefix).stacktrace_json", .string(json))
                attributes.add("\(stacktracePrefix).stacktrace_json_truncated_bytes", .int(Int64(truncated)))
            } else {
                attributes.add("\(stacktracePrefix).stacktrace_json", .string(json))
            }
            let frames = tree.backtrace()
            if !frames.isEmpty { attributes.add("exception.stacktrace", .string(MetricKitCallStackTree.format(frames))) }
        }
        if let exceptionType { attributes.add("exception.type", .string(exceptionType)) }
        if let exceptionMessage { attributes.add("exception.message", .string(exceptionMessage)) }
        return OTLPLogRecord(
            timeUnixNano: time, observedTimeUnixNano: time, severity: severity, severityText: severity.description,
            body: .string(body), attributes: attributes.items, eventName: "metrickit.diagnostic.\(kind)")
    }

    /// A JSON value as an attribute value (objects become key/value lists).
    static func attributeValue(_ value: JSONValue) -> OTLPAttributeValue {
        switch value {
        case .null: .empty
        case .bool(let bool): .bool(bool)
        case .number(let text): Int64(text).map { .int($0) } ?? .double(Double(text) ?? 0)
        case .string(let text): .string(text)
        case .array(let elements): .array(elements.map(attributeValue))
        case .object(let members): .keyValueList(members.map { OTLPAttribute($0.0, attributeValue($0.1)) })
        }
    }
}
