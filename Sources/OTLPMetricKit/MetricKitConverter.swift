public import OTLPTelemetry
public import OTLPWire

/// Turns MetricKit payload JSON (`MXMetricPayload.jsonRepresentation()`) into OTLP spans, on any platform.
///
/// A metric payload becomes one `MXMetricPayload` span over the reporting period (`timeStampBegin` →
/// `timeStampEnd`) with `metrickit.*` attributes in base units, and one `MXSignpostMetric` child span per
/// signpost with `signpost.*` attributes. Every attribute, its type, unit and source field are listed in
/// `Docs/MetricKitAttributes.md`.
public struct MetricKitConverter: Sendable {
    /// Conversion settings.
    public struct Options: Sendable {
        /// Scope of the spans and log records. Default `@honeycombio/instrumentation-metric-kit`, as the
        /// MetricKit reference states.
        public var scope: OTLPInstrumentationScope
        /// Offset from UTC assumed for timestamps without one (current OSes write the device's local time).
        /// Default 0.
        public var assumedUTCOffsetSeconds: Int
        /// Longest `…stacktrace_json` value, in bytes; longer trees are cut (at a character boundary) and
        /// the cut is counted in `…stacktrace_json_truncated_bytes`. Default 64 KiB.
        public var maxStacktraceJSONBytes: Int

        public init(
            scope: OTLPInstrumentationScope = OTLPInstrumentationScope(name: "@honeycombio/instrumentation-metric-kit"),
            assumedUTCOffsetSeconds: Int = 0, maxStacktraceJSONBytes: Int = 64 * 1024
        ) {
            self.scope = scope
            self.assumedUTCOffsetSeconds = assumedUTCOffsetSeconds
            self.maxStacktraceJSONBytes = maxStacktraceJSONBytes
        }
    }

    public let options: Options
    let idGenerator: any OTLPIDGenerator

    public init(options: Options = Options(), idGenerator: any OTLPIDGenerator = OTLPRandomIDGenerator()) {
        self.options = options
        self.idGenerator = idGenerator
    }

    /// The spans of one metric payload: `MXMetricPayload`, then its `MXSignpostMetric` children.
    public func convertMetricPayload(json: [UInt8]) throws(MetricKitConversionError) -> [OTLPSpan] {
        let payload = try MetricKitJSON.parse(json)
        let (start, end) = try period(payload)
        var attributes = AttributeList()
        if let multiple = try payload.bool("multipleAppVersions") {
            attributes.add("metrickit.includes_multiple_application_versions", .bool(multiple))
        } else {
            attributes.add("metrickit.includes_multiple_application_versions", .bool(false))  // absent means false
        }
        if let version = try payload.string("appVersion") { attributes.add("metrickit.latest_application_version", .string(version)) }
        if let begin = try payload.string("timeStampBegin") { attributes.add("metrickit.timestamp_begin", .string(begin)) }
        if let finish = try payload.string("timeStampEnd") { attributes.add("metrickit.timestamp_end", .string(finish)) }
        if let metadata = try payload.object("metaData") { try Self.passMetadata(metadata, into: &attributes) }

        if let cpu = try payload.object("cpuMetrics") {
            try attributes.measurement(cpu, "cumulativeCPUTime", "metrickit.cpu.cpu_time")
            try attributes.measurement(cpu, "cumulativeCPUInstructions", "metrickit.cpu.instruction_count")
        }
        if let gpu = try payload.object("gpuMetrics") { try attributes.measurement(gpu, "cumulativeGPUTime", "metrickit.gpu.time") }
        if let cellular = try payload.object("cellularConditionMetrics") {
            try attributes.histogram(cellular, "cellConditionTime", "metrickit.cellular_condition.bars")
        }
        if let time = try payload.object("applicationTimeMetrics") {
            try attributes.measurement(time, "cumulativeForegroundTime", "metrickit.app_time.foreground_time")
            try attributes.measurement(time, "cumulativeBackgroundTime", "metrickit.app_time.background_time")
            try attributes.measurement(time, "cumulativeBackgroundAudioTime", "metrickit.app_time.background_audio_time")
            try attributes.measurement(time, "cumulativeBackgroundLocationTime", "metrickit.app_time.background_location_time")
        }
        if let location = try payload.object("locationActivityMetrics") {
            for (key, name) in [
                ("cumulativeBestAccuracyTime", "best_accuracy_time"), ("cumulativeBestAccuracyForNavigationTime", "best_accuracy_for_nav_time"),
                ("cumulativeNearestTenMetersAccuracyTime", "accuracy_10m_time"), ("cumulativeHundredMetersAccuracyTime", "accuracy_100m_time"),
                ("cumulativeKilometerAccuracyTime", "accuracy_1km_time"), ("cumulativeThreeKilometersAccuracyTime", "accuracy_3km_time"),
            ] { try attributes.measurement(location, key, "metrickit.location_activity.\(name)") }
        }
        if let network = try payload.object("networkTransferMetrics") {
            try attributes.measurement(network, "cumulativeWifiUpload", "metrickit.network_transfer.wifi_upload")
            try attributes.measurement(network, "cumulativeWifiDownload", "metrickit.network_transfer.wifi_download")
            try attributes.measurement(network, "cumulativeCellularUpload", "metrickit.network_transfer.cellular_upload")
            try attributes.measurement(network, "cumulativeCellularDownload", "metrickit.network_transfer.cellular_download")
        }
        if let launch = try payload.object("applicationLaunchMetrics") {
            try attributes.histogram(launch, "histogrammedTimeToFirstDrawKey", "metrickit.app_launch.time_to_first_draw")
            try attributes.histogram(launch, "histogrammedResumeTime", "metrickit.app_launch.app_resume_time")
            try attributes.histogram(launch, "histogrammedOptimizedTimeToFirstDrawKey", "metrickit.app_launch.optimized_time_to_first_draw")
            try attributes.histogram(launch, "histogrammedExtendedLaunch", "metrickit.app_launch.extended_launch")
        }
        if let responsiveness = try payload.object("applicationResponsivenessMetrics") {
            try attributes.histogram(responsiveness, "histogrammedAppHangTime", "metrickit.app_responsiveness.hang_time")
        }
        if let disk = try payload.object("diskIOMetrics") { try attributes.measurement(disk, "cumulativeLogicalWrites", "metrickit.diskio.logical_write_count") }
        if let memory = try payload.object("memoryMetrics") {
            try attributes.measurement(memory, "peakMemoryUsage", "metrickit.memory.peak_memory_usage")
            try attributes.average(memory, "averageSuspendedMemory", "metrickit.memory.suspended_memory")
        }
        if let display = try payload.object("displayMetrics") { try attributes.average(display, "averagePixelLuminance", "metrickit.display.pixel_luminance") }
        if let animation = try payload.object("animationMetrics") {
            try attributes.measurement(animation, "scrollHitchTimeRatio", "metrickit.animation.scroll_hitch_time_ratio")
            try attributes.measurement(animation, "hitchTimeRatio", "metrickit.animation.hitch_time_ratio")
        }
        if let exits = try payload.object("applicationExitMetrics") {
            try exitCounts(exits, "foregroundExitData", "foreground", Self.foregroundExits, into: &attributes)
            try exitCounts(exits, "backgroundExitData", "background", Self.backgroundExits, into: &attributes)
        }
        if let space = try payload.object("diskSpaceUsageMetrics") {
            for key in space.keys.sorted() {
                let name = "metrickit.disk_space_usage.\(MetricKitJSON.snakeCase(key.hasPrefix("total") ? String(key.dropFirst(5)).lowercasedFirst : key))"
                if case .number = space.value(key) {
                    if let count = try space.integer(key) { attributes.add(name, .int(count)) }
                } else {
                    try attributes.measurement(space, key, name)
                }
            }
        }

        let traceID = idGenerator.newTraceID()
        let payloadSpan = OTLPSpan(
            traceID: traceID, spanID: idGenerator.newSpanID(), name: "MXMetricPayload", kind: .internal,
            startTimeUnixNano: start, endTimeUnixNano: end, attributes: attributes.items)
        var spans = [payloadSpan]
        for (index, element) in (try payload.array("signpostMetrics") ?? []).enumerated() {
            guard case .object(let members) = element else {
                throw MetricKitConversionError(path: "$.signpostMetrics[\(index)]", message: "expected an object")
            }
            let signpost = MetricKitJSON(members: members, path: "$.signpostMetrics[\(index)]")
            guard !signpost.members.isEmpty else { continue }  // `{}`: a signpost without name or category
            var signpostAttributes = AttributeList()
            if let name = try signpost.string("signpostName") { signpostAttributes.add("signpost.name", .string(name)) }
            if let category = try signpost.string("signpostCategory") { signpostAttributes.add("signpost.category", .string(category)) }
            if let count = try signpost.integer("totalSignpostCount") { signpostAttributes.add("signpost.count", .int(count)) }
            if let interval = try signpost.object("signpostIntervalData") {
                try signpostAttributes.histogram(interval, "histogrammedSignpostDurations", "signpost.duration")
                try signpostAttributes.measurement(interval, "signpostCumulativeCPUTime", "signpost.cpu_time")
                try signpostAttributes.measurement(interval, "signpostAverageMemory", "signpost.memory_average")
                try signpostAttributes.measurement(interval, "signpostCumulativeLogicalWrites", "signpost.logical_write_count")
                try signpostAttributes.measurement(interval, "signpostCumulativeHitchTimeRatio", "signpost.hitch_time_ratio")
            }
            spans.append(OTLPSpan(
                traceID: traceID, spanID: idGenerator.newSpanID(), parentSpanID: payloadSpan.spanID, name: "MXSignpostMetric",
                kind: .internal, startTimeUnixNano: start, endTimeUnixNano: end, attributes: signpostAttributes.items))
        }
        return spans
    }

    /// The reporting period in Unix nanoseconds; a missing end is the begin (a point in time).
    func period(_ payload: MetricKitJSON) throws(MetricKitConversionError) -> (UInt64, UInt64) {
        func time(_ key: String) throws(MetricKitConversionError) -> UInt64? {
            guard let text = try payload.string(key) else { return nil }
            guard let nanos = MetricKitTimestamp.unixNano(text, assumedUTCOffsetSeconds: options.assumedUTCOffsetSeconds) else {
                throw MetricKitConversionError(path: payload.childPath(key), message: "\"\(text)\" is not a MetricKit timestamp")
            }
            return nanos
        }
        let begin = try time("timeStampBegin")
        let end = try time("timeStampEnd")
        guard let start = begin ?? end else {
            throw MetricKitConversionError(path: "$", message: "no timeStampBegin or timeStampEnd: the reporting period is unknown")
        }
        return (start, max(end ?? start, start))
    }

    /// Passes the scalar members of a `metaData` or `diagnosticMetaData` object through as
    /// `metrickit.metadata.<snake_case name>`, except `skipping` (keys a caller turns into attributes of its own).
    static func passMetadata(
        _ metadata: MetricKitJSON, skipping: Set<String> = [], into attributes: inout AttributeList
    ) throws(MetricKitConversionError) {
        for key in metadata.keys where !skipping.contains(key) {
            let name = "metrickit.metadata.\(metadataNames[key] ?? MetricKitJSON.snakeCase(key))"
            switch metadata.value(key) {
            case .bool(let bool)?: attributes.add(name, .bool(bool))
            case .number?: if let int = try metadata.integer(key) { attributes.add(name, .int(int)) }
            case .string(let text)?: attributes.add(name, .string(text))
            default: continue  // nested values of unknown keys are left out
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
        ("cumulativeNormalAppExitCount", "normal_app_exit_count"), ("cumulativeMemoryResourceLimitExitCount", "memory_resource_limit_exit_count"),
        ("cumulativeBadAccessExitCount", "bad_access_exit_count"), ("cumulativeAbnormalExitCount", "abnormal_exit_count"),
        ("cumulativeIllegalInstructionExitCount", "illegal_instruction_exit_count"), ("cumulativeAppWatchdogExitCount", "app_watchdog_exit_count"),
    ]
    static let backgroundExits = [
        ("cumulativeNormalAppExitCount", "normal_app_exit_count"), ("cumulativeMemoryResourceLimitExitCount", "memory_resource_limit_exit_count"),
        ("cumulativeCPUResourceLimitExitCount", "cpu_resource_limit_exit_count"), ("cumulativeMemoryPressureExitCount", "memory_pressure_exit_count"),
        ("cumulativeBadAccessExitCount", "bad_access_exit_count"), ("cumulativeAbnormalExitCount", "abnormal_exit_count"),
        ("cumulativeIllegalInstructionExitCount", "illegal_instruction_exit_count"), ("cumulativeAppWatchdogExitCount", "app_watchdog_exit_count"),
        ("cumulativeSuspendedWithLockedFileExitCount", "suspended_with_locked_file_exit_count"),
        ("cumulativeBackgroundTaskAssertionTimeoutExitCount", "background_task_assertion_timeout_exit_count"),
    ]

    /// Exit counters: the OS leaves out counters that are zero, so the known ones default to 0; other
    /// (non-public) counters present are passed through.
    private func exitCounts(
        _ exits: MetricKitJSON, _ key: String, _ group: String, _ known: [(String, String)], into attributes: inout AttributeList
    ) throws(MetricKitConversionError) {
        guard let data = try exits.object(key) else { return }
        for (field, name) in known { attributes.add("metrickit.app_exit.\(group).\(name)", .int(try data.integer(field) ?? 0)) }
        let knownFields = Set(known.map(\.0))
        for field in data.keys.sorted() where !knownFields.contains(field) {
            guard let count = try data.integer(field) else { continue }
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
        guard let average = try object.object(key) else { return }
        let samples = try average.integer("sampleCount")
        if samples == 0 { return }
        switch try average.measurement("averageValue") {
        case .value(let measurement)?:
            add("\(name)_average", .double(measurement.value))
            // The deviation is a plain number in the average's written unit: scale it the same way.
            if let deviation = try average.double("standardDeviation"), deviation >= 0 {
                add("\(name)_standard_deviation", .double(deviation * measurement.writtenUnitFactor))
            }
        case .unparsed(let raw)?: add("\(name)_average_raw", .string(raw))
        case nil: break
        }
        if let samples { add("\(name)_sample_count", .int(samples)) }
    }

    /// A histogram: `<name>_average` (bucket-midpoint mean, as the reference computes it), and estimated
    /// `_p50`, `_p90`, `_p99`, `_count`.
    mutating func histogram(_ object: MetricKitJSON, _ key: String, _ name: String) throws(MetricKitConversionError) {
        guard let histogram = try object.histogram(key), let average = histogram.average else { return }
        add("\(name)_average", .double(average))
        for (label, fraction) in [("p50", 0.5), ("p90", 0.9), ("p99", 0.99)] {
            if let value = histogram.percentile(fraction) { add("\(name)_\(label)", .double(value)) }
        }
        add("\(name)_count", .int(Int64(histogram.totalCount)))
    }
}
