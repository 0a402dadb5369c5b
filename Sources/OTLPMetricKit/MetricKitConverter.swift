public import OTLPWire

/// Turns MetricKit payload JSON (`MXMetricPayload.jsonRepresentation()`) into OTLP spans, on any platform.
///
/// A metric payload becomes one `MXMetricPayload` span over the reporting period (`timeStampBegin` →
/// `timeStampEnd`) with `metrickit.*` attributes in base units, and one `MXSignpostMetric` child span per
/// signpost with `signpost.*` attributes. Every attribute, its type, unit and source field are listed in
/// `Docs/MetricKitAttributes.md`.
public struct MetricKitConverter: Sendable {
    /// Conversion settings.
    public struct Options: Sendable, Equatable {
        /// Scope of the spans and log records. Default `@honeycombio/instrumentation-metric-kit`, as the
        /// MetricKit reference states.
        public var scope: OTLPInstrumentationScope
        /// Offset from UTC assumed for timestamps without one (current OSes write the device's local time),
        /// in seconds. Default 0; at most ±64,800 (18 hours).
        public var assumedUTCOffsetSeconds: Int
        /// Longest `…stacktrace_json` value, in bytes; longer trees are cut between frames (the value stays
        /// valid JSON) and the cut is counted in `…stacktrace_json_omitted_frames` and
        /// `…stacktrace_json_truncated_bytes`. Default 64 KiB; not negative.
        public var maxStacktraceJSONBytes: Int
        /// Deepest JSON nesting accepted in a payload document (objects and arrays). A call-stack tree takes
        /// about two levels per frame, so the default, 4,096, admits stacks of about 2,000 frames (the OS
        /// keeps at most about 130). The parser does not recurse; the limit bounds the memory and the stack
        /// a hostile document's tree costs when it is freed. At most 8,192.
        public var maxPayloadNestingDepth: Int

        /// The largest ``maxPayloadNestingDepth`` accepted: 8,192 levels (freeing a tree that deep takes
        /// about 450 KB of stack, within the 512 KiB of a secondary thread on Apple platforms).
        package static let maxPayloadNestingDepthLimit = 8192

        /// The documented defaults: what an omitted argument (or `otlp-metrickit` option) means.
        public static let `default` = Options(
            scope: OTLPInstrumentationScope(name: "@honeycombio/instrumentation-metric-kit"), assumedUTCOffsetSeconds: 0,
            maxStacktraceJSONBytes: 64 * 1024, maxPayloadNestingDepth: 4096)

        /// Settings with ``default``'s values unless given.
        public init(
            scope: OTLPInstrumentationScope = Options.default.scope, assumedUTCOffsetSeconds: Int = Options.default.assumedUTCOffsetSeconds,
            maxStacktraceJSONBytes: Int = Options.default.maxStacktraceJSONBytes,
            maxPayloadNestingDepth: Int = Options.default.maxPayloadNestingDepth
        ) {
            self.scope = scope
            self.assumedUTCOffsetSeconds = assumedUTCOffsetSeconds
            self.maxStacktraceJSONBytes = maxStacktraceJSONBytes
            self.maxPayloadNestingDepth = maxPayloadNestingDepth
        }

        /// Why these options cannot be used, or `nil` when they can.
        package var problem: String? {
            let maxOffset = MetricKitTimestamp.maxUTCOffsetSeconds
            if !(-maxOffset...maxOffset).contains(assumedUTCOffsetSeconds) {
                return "assumed UTC offset \(assumedUTCOffsetSeconds) s is outside ±\(MetricKitTimestamp.maxUTCOffsetSeconds) s (±18 hours)"
            }
            if maxStacktraceJSONBytes < 0 { return "maxStacktraceJSONBytes \(maxStacktraceJSONBytes) is negative" }
            if !(1...Self.maxPayloadNestingDepthLimit).contains(maxPayloadNestingDepth) {
                return "maxPayloadNestingDepth \(maxPayloadNestingDepth) is outside 1...\(Self.maxPayloadNestingDepthLimit)"
            }
            return nil
        }
    }

    /// What a payload is, decided by its structure: a diagnostic payload has at least one of the
    /// diagnostic arrays (`crashDiagnostics`, `hangDiagnostics`, `cpuExceptionDiagnostics`,
    /// `diskWriteExceptionDiagnostics`, `appLaunchDiagnostics`) as a top-level key whose value is a non-empty
    /// array, or an empty one with no other object or array at the top level; every other object is a metric
    /// payload. Strings and nested keys never count.
    package enum PayloadKind: String, Sendable {
        /// An `MXMetricPayload`'s JSON: converted to spans.
        case metric
        /// An `MXDiagnosticPayload`'s JSON: converted to a span and log records.
        case diagnostic
    }

    /// The spans of a metric payload and the values it left out.
    public struct MetricConversion: Sendable {
        /// `MXMetricPayload`, then its `MXSignpostMetric` children.
        public var spans: [OTLPSpan]
        /// Values skipped by tolerant parsing (wrong type or unusable value), with their JSON paths: the
        /// first 100, then one entry `$: N more values skipped`.
        public var skippedValues: [MetricKitConversionError]
        /// How many values were skipped in all.
        public var skippedValueCount: Int
    }

    /// A payload of either kind, converted.
    public enum PayloadConversion: Sendable {
        /// A metric payload's spans, and what was skipped.
        case metric(MetricConversion)
        /// A diagnostic payload's span and log records, and what was skipped.
        case diagnostic(DiagnosticConversion)
    }

    /// Conversion settings in use.
    package let options: Options
    let idGenerator: any OTLPIDGenerator

    /// A converter with `options`, taking trace and span IDs from `idGenerator`.
    public init(options: Options = .default, idGenerator: any OTLPIDGenerator = OTLPRandomIDGenerator()) {
        self.options = options
        self.idGenerator = idGenerator
    }

    /// Parses a payload document with the options' nesting limit (after checking the options).
    func parse(_ json: [UInt8], notes: MetricKitConversionNotes) throws(MetricKitConversionError) -> MetricKitJSON {
        if let problem = options.problem { throw MetricKitConversionError(path: "$", message: "options: \(problem)") }
        return try MetricKitJSON.parse(json, maxDepth: options.maxPayloadNestingDepth, notes: notes)
    }

    /// Whether `json` is a metric or a diagnostic payload (decided by structure, as ``convertPayload(json:)`` says).
    package func payloadKind(json: [UInt8]) throws(MetricKitConversionError) -> PayloadKind {
        Self.kind(of: try parse(json, notes: MetricKitConversionNotes()))
    }

    /// Diagnostic when a top-level diagnostic key holds a non-empty array, or when diagnostic keys hold
    /// (empty) arrays and nothing else at the top level is an object or array (a diagnostic payload that
    /// happens to be empty). A metric payload with an empty `crashDiagnostics: []` beside its metric sections
    /// stays a metric payload, so its metrics are not lost.
    static func kind(of payload: MetricKitJSON) -> PayloadKind {
        var holdsDiagnosticArray = false
        for kind in diagnosticKinds {
            guard case .array(let entries)? = payload.value(kind.array) else { continue }
            if !entries.isEmpty { return .diagnostic }
            holdsDiagnosticArray = true
        }
        guard holdsDiagnosticArray else { return .metric }
        let diagnosticKeys = Set(diagnosticKinds.map(\.array))
        let hasOtherSections = payload.keys.contains { key in
            guard !diagnosticKeys.contains(key) else { return false }
            switch payload.value(key) {
            case .object?, .array?: return true
            default: return false
            }
        }
        return hasOtherSections ? .metric : .diagnostic
    }

    /// Converts a payload of either kind, parsing it once. The kind is decided by structure: a diagnostic
    /// payload has at least one of the diagnostic arrays (`crashDiagnostics`, `hangDiagnostics`,
    /// `cpuExceptionDiagnostics`, `diskWriteExceptionDiagnostics`, `appLaunchDiagnostics`) as a top-level
    /// key whose value is a non-empty array, or an empty one with no other object or array at the top level;
    /// every other object is a metric payload.
    public func convertPayload(json: [UInt8]) throws(MetricKitConversionError) -> PayloadConversion {
        let notes = MetricKitConversionNotes()
        let payload = try parse(json, notes: notes)
        switch Self.kind(of: payload) {
        case .metric: return .metric(try convertMetric(payload))
        case .diagnostic: return .diagnostic(try convertDiagnostic(payload))
        }
    }

    /// The spans of one metric payload: `MXMetricPayload`, then its `MXSignpostMetric` children. Values of
    /// the wrong type are skipped and counted on the payload span (`metrickit.skipped_value_count`).
    package func convertMetricPayload(json: [UInt8]) throws(MetricKitConversionError) -> [OTLPSpan] {
        let notes = MetricKitConversionNotes()
        return try convertMetric(try parse(json, notes: notes)).spans
    }

    func convertMetric(_ payload: MetricKitJSON) throws(MetricKitConversionError) -> MetricConversion {
        let (start, end, beginText, endText) = try period(payload)
        var attributes = AttributeList()
        if let multiple = payload.bool("multipleAppVersions") {
            attributes.add("metrickit.includes_multiple_application_versions", .bool(multiple))
        } else if payload.value("multipleAppVersions") == nil {
            attributes.add("metrickit.includes_multiple_application_versions", .bool(false))  // absent means false
        }
        if let version = payload.string("appVersion") { attributes.add("metrickit.latest_application_version", .string(version)) }
        if let beginText { attributes.add("metrickit.timestamp_begin", .string(beginText)) }
        if let endText { attributes.add("metrickit.timestamp_end", .string(endText)) }
        if let metadata = payload.object("metaData") { Self.passMetadata(metadata, into: &attributes) }

        if let cpu = payload.object("cpuMetrics") {
            try attributes.measurement(cpu, "cumulativeCPUTime", "metrickit.cpu.cpu_time")
            try attributes.measurement(cpu, "cumulativeCPUInstructions", "metrickit.cpu.instruction_count")
        }
        if let gpu = payload.object("gpuMetrics") { try attributes.measurement(gpu, "cumulativeGPUTime", "metrickit.gpu.time") }
        if let cellular = payload.object("cellularConditionMetrics") {
            try attributes.histogram(cellular, "cellConditionTime", "metrickit.cellular_condition.bars")
        }
        if let time = payload.object("applicationTimeMetrics") {
            try attributes.measurement(time, "cumulativeForegroundTime", "metrickit.app_time.foreground_time")
            try attributes.measurement(time, "cumulativeBackgroundTime", "metrickit.app_time.background_time")
            try attributes.measurement(time, "cumulativeBackgroundAudioTime", "metrickit.app_time.background_audio_time")
            try attributes.measurement(time, "cumulativeBackgroundLocationTime", "metrickit.app_time.background_location_time")
        }
        if let location = payload.object("locationActivityMetrics") {
            for (key, name) in [
                ("cumulativeBestAccuracyTime", "best_accuracy_time"),
                ("cumulativeBestAccuracyForNavigationTime", "best_accuracy_for_nav_time"),
                ("cumulativeNearestTenMetersAccuracyTime", "accuracy_10m_time"),
                ("cumulativeHundredMetersAccuracyTime", "accuracy_100m_time"),
                ("cumulativeKilometerAccuracyTime", "accuracy_1km_time"), ("cumulativeThreeKilometersAccuracyTime", "accuracy_3km_time"),
            ] { try attributes.measurement(location, key, "metrickit.location_activity.\(name)") }
        }
        if let network = payload.object("networkTransferMetrics") {
            try attributes.measurement(network, "cumulativeWifiUpload", "metrickit.network_transfer.wifi_upload")
            try attributes.measurement(network, "cumulativeWifiDownload", "metrickit.network_transfer.wifi_download")
            try attributes.measurement(network, "cumulativeCellularUpload", "metrickit.network_transfer.cellular_upload")
            try attributes.measurement(network, "cumulativeCellularDownload", "metrickit.network_transfer.cellular_download")
        }
        if let launch = payload.object("applicationLaunchMetrics") {
            try attributes.histogram(launch, "histogrammedTimeToFirstDrawKey", "metrickit.app_launch.time_to_first_draw")
            try attributes.histogram(launch, "histogrammedResumeTime", "metrickit.app_launch.app_resume_time")
            try attributes.histogram(launch, "histogrammedOptimizedTimeToFirstDrawKey", "metrickit.app_launch.optimized_time_to_first_draw")
            try attributes.histogram(launch, "histogrammedExtendedLaunch", "metrickit.app_launch.extended_launch")
        }
        if let responsiveness = payload.object("applicationResponsivenessMetrics") {
            try attributes.histogram(responsiveness, "histogrammedAppHangTime", "metrickit.app_responsiveness.hang_time")
        }
        if let disk = payload.object("diskIOMetrics") {
            try attributes.measurement(disk, "cumulativeLogicalWrites", "metrickit.diskio.logical_write_count")
        }
        if let memory = payload.object("memoryMetrics") {
            try attributes.measurement(memory, "peakMemoryUsage", "metrickit.memory.peak_memory_usage")
            try attributes.average(memory, "averageSuspendedMemory", "metrickit.memory.suspended_memory")
        }
        if let display = payload.object("displayMetrics") {
            try attributes.average(display, "averagePixelLuminance", "metrickit.display.pixel_luminance")
        }
        if let animation = payload.object("animationMetrics") {
            try attributes.measurement(animation, "scrollHitchTimeRatio", "metrickit.animation.scroll_hitch_time_ratio")
            try attributes.measurement(animation, "hitchTimeRatio", "metrickit.animation.hitch_time_ratio")
        }
        if let exits = payload.object("applicationExitMetrics") {
            exitCounts(exits, "foregroundExitData", "foreground", Self.foregroundExits, into: &attributes)
            exitCounts(exits, "backgroundExitData", "background", Self.backgroundExits, into: &attributes)
        }
        if let space = payload.object("diskSpaceUsageMetrics") {
            for key in space.keys.sorted() {
                let name =
                    "metrickit.disk_space_usage.\(MetricKitJSON.snakeCase(key.hasPrefix("total") ? String(key.dropFirst(5)).lowercasedFirst : key))"
                if case .number(let text)? = space.value(key) {
                    attributes.add(name, Self.number(text))
                } else {
                    try attributes.measurement(space, key, name)
                }
            }
        }

        let traceID = idGenerator.newTraceID()
        let payloadSpanID = idGenerator.newSpanID()
        var spans: [OTLPSpan] = []
        for (index, element) in (payload.array("signpostMetrics") ?? []).enumerated() {
            guard let signpost = MetricKitJSON.element(element, path: "$.signpostMetrics[\(index)]", notes: payload.notes),
                !signpost.members.isEmpty
            else { continue }  // `{}`: a signpost without name or category
            var signpostAttributes = AttributeList()
            if let name = signpost.string("signpostName") { signpostAttributes.add("signpost.name", .string(name)) }
            if let category = signpost.string("signpostCategory") { signpostAttributes.add("signpost.category", .string(category)) }
            if let count = signpost.integer("totalSignpostCount") { signpostAttributes.add("signpost.count", .int(count)) }
            if let interval = signpost.object("signpostIntervalData") {
                try signpostAttributes.histogram(interval, "histogrammedSignpostDurations", "signpost.duration")
                try signpostAttributes.measurement(interval, "signpostCumulativeCPUTime", "signpost.cpu_time")
                try signpostAttributes.measurement(interval, "signpostAverageMemory", "signpost.memory_average")
                try signpostAttributes.measurement(interval, "signpostCumulativeLogicalWrites", "signpost.logical_write_count")
                try signpostAttributes.measurement(interval, "signpostCumulativeHitchTimeRatio", "signpost.hitch_time_ratio")
            }
            spans.append(
                OTLPSpan(
                    traceID: traceID, spanID: idGenerator.newSpanID(), parentSpanID: payloadSpanID, name: "MXSignpostMetric",
                    kind: .internal, startTimeUnixNano: start, endTimeUnixNano: end, attributes: signpostAttributes.items))
        }
        let (bounded, dropped) = attributes.bounded(then: payload.notes.attributes())
        let payloadSpan = OTLPSpan(
            traceID: traceID, spanID: payloadSpanID, name: "MXMetricPayload", kind: .internal,
            startTimeUnixNano: start, endTimeUnixNano: end, attributes: bounded, droppedAttributesCount: dropped)
        return MetricConversion(
            spans: [payloadSpan] + spans, skippedValues: payload.notes.skippedValues(), skippedValueCount: payload.notes.count)
    }

    /// A JSON number as an attribute value: an int when it is an exact 64-bit integer, else a double when
    /// finite, else its text.
    static func number(_ text: String) -> OTLPAttributeValue {
        if let int = MetricKitJSON.int64(text) { return .int(int) }
        if let double = Double(text), double.isFinite { return .double(double) }
        return .string(text)
    }

    /// The reporting period in Unix nanoseconds; a missing end is the begin (a point in time). A timestamp
    /// that cannot be read is skipped when the other one can; with neither, the period is unknown and the
    /// payload fails. An end before the begin is noted and taken as the begin.
    /// Also the two texts as written (each read once, so a bad one is noted once).
    func period(_ payload: MetricKitJSON) throws(MetricKitConversionError) -> (UInt64, UInt64, begin: String?, end: String?) {
        var unreadable: MetricKitConversionError?
        let beginText = payload.string("timeStampBegin"), endText = payload.string("timeStampEnd")
        func time(_ key: String, _ text: String?) -> UInt64? {
            guard let text else { return nil }
            guard let nanos = MetricKitTimestamp.unixNano(text, assumedUTCOffsetSeconds: options.assumedUTCOffsetSeconds) else {
                let error = MetricKitConversionError(
                    path: payload.childPath(key),
                    message: "\"\(text)\" is not a MetricKit timestamp (yyyy-MM-dd HH:mm:ss with an optional ±hhmm offset, years 1970-2500)"
                )
                unreadable = unreadable ?? error
                return nil
            }
            return nanos
        }
        let begin = time("timeStampBegin", beginText)
        let end = time("timeStampEnd", endText)
        guard let start = begin ?? end else {
            throw unreadable
                ?? MetricKitConversionError(path: "$", message: "no timeStampBegin or timeStampEnd: the reporting period is unknown")
        }
        if let unreadable { payload.notes.skip(unreadable.path, unreadable.message + ", skipped") }
        if let end, end < start { payload.notes.skip(payload.childPath("timeStampEnd"), "before timeStampBegin, taken as timeStampBegin") }
        return (start, max(end ?? start, start), beginText, endText)
    }

    /// Passes the scalar members of a `metaData` or `diagnosticMetaData` object through as
    /// `metrickit.metadata.<snake_case name>`, except `skipping` (keys a caller turns into attributes of its
    /// own). Numbers become ints when they are exact 64-bit integers, else doubles; nested objects and
    /// arrays are skipped and noted.
    static func passMetadata(_ metadata: MetricKitJSON, skipping: Set<String> = [], into attributes: inout AttributeList) {
        for key in metadata.keys where !skipping.contains(key) {
            let name = "metrickit.metadata.\(metadataNames[key] ?? MetricKitJSON.snakeCase(key))"
            switch metadata.value(key) {
            case .bool(let bool)?: attributes.add(name, .bool(bool))
            case .number(let text)?: attributes.add(name, number(text))
            case .string(let text)?: attributes.add(name, .string(text))
            case nil, .null?: continue
            case .array?, .object?: metadata.notes.skip(metadata.childPath(key), "a nested value is not passed through, skipped")
            }
        }
    }

    /// Metadata keys whose attribute name is not simply their snake_case form.
    static let metadataNames = [
        "appBuildVersion": "app_build_version", "appVersion": "application_version", "osVersion": "os_version",
        "regionFormat": "region_format", "deviceType": "device_type", "platformArchitecture": "platform_arch",
        "bundleIdentifier": "bundle_identifier", "lowPowerModeEnabled": "low_power_mode_enabled", "isTestFlightApp": "is_test_flight_app",
    ]

    static let foregroundExits = [
        ("cumulativeNormalAppExitCount", "normal_app_exit_count"),
        ("cumulativeMemoryResourceLimitExitCount", "memory_resource_limit_exit_count"),
        ("cumulativeBadAccessExitCount", "bad_access_exit_count"), ("cumulativeAbnormalExitCount", "abnormal_exit_count"),
        ("cumulativeIllegalInstructionExitCount", "illegal_instruction_exit_count"),
        ("cumulativeAppWatchdogExitCount", "app_watchdog_exit_count"),
    ]
    static let backgroundExits = [
        ("cumulativeNormalAppExitCount", "normal_app_exit_count"),
        ("cumulativeMemoryResourceLimitExitCount", "memory_resource_limit_exit_count"),
        ("cumulativeCPUResourceLimitExitCount", "cpu_resource_limit_exit_count"),
        ("cumulativeMemoryPressureExitCount", "memory_pressure_exit_count"),
        ("cumulativeBadAccessExitCount", "bad_access_exit_count"), ("cumulativeAbnormalExitCount", "abnormal_exit_count"),
        ("cumulativeIllegalInstructionExitCount", "illegal_instruction_exit_count"),
        ("cumulativeAppWatchdogExitCount", "app_watchdog_exit_count"),
        ("cumulativeSuspendedWithLockedFileExitCount", "suspended_with_locked_file_exit_count"),
        ("cumulativeBackgroundTaskAssertionTimeoutExitCount", "background_task_assertion_timeout_exit_count"),
    ]

    /// Exit counters: the OS leaves out counters that are zero, so the known ones default to 0 when absent
    /// (a present but unreadable one is skipped, not zeroed); other (non-public) counters present are passed
    /// through.
    private func exitCounts(
        _ exits: MetricKitJSON, _ key: String, _ group: String, _ known: [(String, String)], into attributes: inout AttributeList
    ) {
        guard let data = exits.object(key) else { return }
        for (field, name) in known {
            let count = data.value(field) == nil ? 0 : data.integer(field)
            if let count { attributes.add("metrickit.app_exit.\(group).\(name)", .int(count)) }
        }
        let knownFields = Set(known.map(\.0))
        for field in data.keys.sorted() where !knownFields.contains(field) {
            guard let count = data.integer(field) else { continue }
            let snake = MetricKitJSON.snakeCase(field.hasPrefix("cumulative") ? String(field.dropFirst(10)).lowercasedFirst : field)
            attributes.add("metrickit.app_exit.\(group).\(snake)", .int(count))
        }
    }
}

extension String {
    var lowercasedFirst: String { prefix(1).lowercased() + dropFirst() }
}

/// Attributes in the order they are added, with the measurement, average and histogram conventions.
struct AttributeList {
    private(set) var items: [OTLPAttribute] = []

    mutating func add(_ key: String, _ value: OTLPAttributeValue) {
        items.append(OTLPAttribute(key, value))
    }

    /// The attributes, then `extra`, as readers accept them by default: at most
    /// `OTLPDecodingOptions.default.maxAttributesPerItem` (a payload can pass thousands of metadata keys
    /// through); the excess (the last added, never `extra`) is dropped and counted, as OTLP's
    /// `dropped_attributes_count`.
    func bounded(then extra: [OTLPAttribute] = []) -> (attributes: [OTLPAttribute], dropped: UInt32) {
        let room = max(0, OTLPDecodingOptions.default.maxAttributesPerItem - extra.count)
        let dropped = max(0, items.count - room)
        return (Array(items.prefix(room)) + extra, UInt32(clamping: dropped))
    }

    /// A measurement in its base unit (double); an unparsable one is kept as `<name>_raw` (string).
    mutating func measurement(_ object: MetricKitJSON, _ key: String, _ name: String) throws(MetricKitConversionError) {
        switch try object.measurement(key) {
        case .value(let measurement)?: add(name, .double(measurement.value))
        case .unparsed(let raw)?: add("\(name)_raw", .string(raw))
        case nil: break
        }
    }

    /// An `MXAverage`: `<name>_average`, `_standard_deviation`, `_sample_count`; sampleCount 0 means no data.
    mutating func average(_ object: MetricKitJSON, _ key: String, _ name: String) throws(MetricKitConversionError) {
        guard let average = object.object(key) else { return }
        var samples = average.integer("sampleCount")
        if samples == 0 { return }
        if let count = samples, count < 0 {
            average.notes.skip(average.childPath("sampleCount"), "expected a count (not negative), skipped")
            samples = nil
        }
        switch try average.measurement("averageValue") {
        case .value(let measurement)?:
            add("\(name)_average", .double(measurement.value))
            // The deviation is a plain number in the average's written unit: scale it the same way (checked).
            if let deviation = average.double("standardDeviation") {
                let scaled = deviation * measurement.writtenUnitFactor
                if deviation < 0 {
                    average.notes.skip(average.childPath("standardDeviation"), "negative, skipped")
                } else if !scaled.isFinite {
                    throw MetricKitConversionError(
                        path: average.childPath("standardDeviation"),
                        message: "\(deviation) in the average's unit is beyond the range of a 64-bit float")
                } else {
                    add("\(name)_standard_deviation", .double(scaled))
                }
            }
        case .unparsed(let raw)?: add("\(name)_average_raw", .string(raw))
        case nil: break
        }
        if let samples { add("\(name)_sample_count", .int(samples)) }
    }

    /// A histogram: `<name>_average` (bucket-midpoint mean, as the reference computes it), and estimated
    /// `_p50`, `_p90`, `_p99`, `_count`. Statistics that overflow are errors naming the histogram.
    mutating func histogram(_ object: MetricKitJSON, _ key: String, _ name: String) throws(MetricKitConversionError) {
        guard let histogram = try object.histogram(key), let total = histogram.totalCount, total > 0 else { return }
        guard let average = histogram.average else {
            throw MetricKitConversionError(
                path: object.childPath(key), message: "the bucket-midpoint mean is beyond the range of a 64-bit float")
        }
        add("\(name)_average", .double(average))
        for (label, fraction) in [("p50", 0.5), ("p90", 0.9), ("p99", 0.99)] {
            guard let value = histogram.percentile(fraction) else {
                throw MetricKitConversionError(
                    path: object.childPath(key), message: "the \(label) estimate is beyond the range of a 64-bit float")
            }
            add("\(name)_\(label)", .double(value))
        }
        add("\(name)_count", .int(Int64(total)))
    }
}
