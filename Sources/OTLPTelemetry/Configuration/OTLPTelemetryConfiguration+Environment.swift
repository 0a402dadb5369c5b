public import Foundation
import OTLPWire

extension OTLPTelemetryConfiguration {
    /// This configuration with the OpenTelemetry SDK environment variables applied over it, and a warning for
    /// every variable that is malformed or not supported (it is ignored, as the specification asks; nothing
    /// traps). An empty variable counts as unset.
    ///
    /// ```swift
    /// // Compiled copy: Tests/DocumentationExamples/OTLPTelemetry/OTLPTelemetryDocComments.swift
    /// func startFromAFileAndTheEnvironment(url: URL) throws -> OTLPTelemetry {
    ///     let (configuration, warnings) = try OTLPTelemetryConfiguration.load(contentsOf: url).configuration.applyingEnvironment()
    ///     warnings.forEach { print($0) }  // environment variable OTEL_BSP_MAX_QUEUE_SIZE (not a whole number: "lots"; ignored)
    ///     return OTLPTelemetry(configuration: configuration)
    /// }
    /// ```
    ///
    /// The variables and what they set:
    /// - `OTEL_SDK_DISABLED=true`: ``disabled`` (nothing exported; read last, so it wins).
    /// - `OTEL_SERVICE_NAME`: ``Service/name``, winning over `service.name` in `OTEL_RESOURCE_ATTRIBUTES`.
    /// - `OTEL_RESOURCE_ATTRIBUTES` (`key=value,…`, percent-decoded): ``Service/attributes`` for the keys the
    ///   configuration does not set (the specification makes the variable the secondary resource);
    ///   `service.name` and `service.version` set ``Service/name`` and ``Service/version`` when the
    ///   configuration has none. One malformed entry discards the whole variable, as the specification says.
    /// - `OTEL_TRACES_EXPORTER`, `OTEL_LOGS_EXPORTER` (comma-separated): `otlp` delivers the signal through
    ///   ``otlp`` (made with its defaults when there is none), `console` writes it to standard output as OTLP
    ///   JSON lines, `none` exports it nowhere (its file output included). Without `otlp` in the list the signal
    ///   is not delivered to a collector; a file output set in code or JSON stays unless the list is `none`.
    /// - `OTEL_EXPORTER_OTLP_ENDPOINT`, `_HEADERS`, `_COMPRESSION`, `_TIMEOUT` (milliseconds), `_PROTOCOL`, and
    ///   their `OTEL_EXPORTER_OTLP_TRACES_*` / `OTEL_EXPORTER_OTLP_LOGS_*` forms: ``otlp`` and its
    ///   ``OTLPExporterConfiguration/traces`` / ``OTLPExporterConfiguration/logs`` overrides (headers are merged
    ///   over the configured ones). When the configuration has no ``otlp``, a valid one of these variables makes
    ///   one: the base variables deliver both signals, a signal's own variables that signal. The TLS variables
    ///   `_CERTIFICATE`, `_CLIENT_KEY` and `_CLIENT_CERTIFICATE` (PEM files) set ``OTLPExporterConfiguration/tls``
    ///   and ``OTLPExporterConfiguration/SignalOverride/tls``; `_INSECURE` (gRPC only) is warned about.
    ///   Besides the specification's variables, `OTEL_EXPORTER_OTLP_GZIP_LEVEL` (1...9) sets
    ///   ``OTLPExporterConfiguration/gzipLevel``: this SDK's own.
    /// - `OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`: ``sampling``.
    /// - `OTEL_BSP_*`: ``batch``; `OTEL_BLRP_*`: ``logsBatch`` (starting from ``batch`` when there is none).
    ///   Delays and timeouts are in milliseconds; a timeout of 0 means the longest one accepted. Besides the
    ///   specification's variables, `OTEL_BSP_WHEN_FULL` / `OTEL_BLRP_WHEN_FULL` (`drop` or `wait`) and
    ///   `OTEL_BSP_WHEN_FULL_TIMEOUT` / `OTEL_BLRP_WHEN_FULL_TIMEOUT` (milliseconds) set
    ///   ``OTLPBatchConfiguration/whenFull`` and ``OTLPBatchConfiguration/whenFullTimeoutSeconds``: this SDK's
    ///   own, not the specification's.
    /// - `OTEL_ATTRIBUTE_*`, `OTEL_SPAN_*`, `OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT`,
    ///   `OTEL_LINK_ATTRIBUTE_COUNT_LIMIT`, `OTEL_LOGRECORD_ATTRIBUTE_*`: ``limits``. Spans and log records
    ///   share one set of limits: a signal's own variable wins over the general one and sets the limit of
    ///   both; when the span and log record variables disagree, the span one is used and the other warned
    ///   about.
    ///
    /// Values outside a setting's documented range are ignored with a warning, like unparsable ones.
    ///
    /// - Parameter environment: the variables (default: this process's environment).
    /// - Returns: the configuration, and the warnings in the order the variables were read.
    public func applyingEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> (configuration: OTLPTelemetryConfiguration, warnings: [OTLPConfigurationWarning]) {
        var reader = OTLPEnvironmentReader(environment)
        var configuration = self
        configuration.service = Self.applyingService(service, &reader)
        configuration.applyExporters(&reader)
        if let sampling = Self.sampling(&reader) { configuration.sampling = sampling }
        configuration.batch = Self.applyingBatch("OTEL_BSP_", to: batch, &reader) ?? batch
        if let logsBatch = Self.applyingBatch("OTEL_BLRP_", to: logsBatch ?? batch, &reader) { configuration.logsBatch = logsBatch }
        configuration.limits = Self.applyingLimits(to: limits, &reader)
        if reader.boolean("OTEL_SDK_DISABLED") == true { configuration = configuration.disabled }
        return (configuration, reader.warnings)
    }

    // MARK: Service

    private static func applyingService(_ service: Service, _ reader: inout OTLPEnvironmentReader) -> Service {
        var service = service
        let name = "OTEL_RESOURCE_ATTRIBUTES"
        var problems: [String] = []
        if let pairs = reader.keyValues(name, malformed: { problems.append("entry \($0): \($1)") }) {
            if !problems.isEmpty {
                reader.warn(name, "malformed (\(problems.joined(separator: ", "))); the whole variable is ignored")
            } else if pairs.count > Service.maxAttributes {
                reader.warn(name, "more than \(Service.maxAttributes) entries; the whole variable is ignored")
            } else {
                for (key, value) in pairs {
                    switch key {
                    case "service.name": if service.name == nil, !value.isEmpty { service.name = value }
                    case "service.version": if service.version == nil { service.version = value }
                    default: if service.attributes[key] == nil { service.attributes[key] = value }
                    }
                }
            }
        }
        if let serviceName = reader.value("OTEL_SERVICE_NAME") { service.name = serviceName }
        return service
    }

    // MARK: Exporters

    private mutating func applyExporters(_ reader: inout OTLPEnvironmentReader) {
        var exporter = otlp ?? .default
        var configuredBy: Set<String> = []  // "" for the base variables, else the signal
        var tlsVariables: [String] = []  // TLS and gzip level, read, in order: warned about when no `otlp` is made
        let prefix = "OTEL_EXPORTER_OTLP_"
        for scope in [nil] + OTLPSignal.sdkSignals {
            let infix = scope.map { "\($0.rawValue.uppercased())_" } ?? ""
            let tag = scope?.rawValue ?? ""
            let endpointName = "\(prefix)\(infix)ENDPOINT"
            if let endpoint = reader.value(endpointName) {
                if let problem = OTLPExporterConfiguration.endpointProblem(endpoint) {
                    reader.warn(
                        endpointName,
                        "\(problem), got \(OTLPEnvironmentReader.quoted(OTLPExporterConfiguration.Resolved.redacted(url: endpoint))); ignored"
                    )
                } else {
                    if let scope { exporter[scope].endpoint = endpoint } else { exporter.endpoint = endpoint }
                    configuredBy.insert(tag)
                }
            }
            let headersName = "\(prefix)\(infix)HEADERS"
            var malformed: [String] = []
            if let pairs = reader.keyValues(headersName, malformed: { malformed.append("entry \($0): \($1)") }) {
                var headers: [String: String] = [:]
                for (key, value) in pairs {
                    if let problem = OTLPExporterConfiguration.headerProblem(name: key, value: value) {
                        // The value may be a secret: the warning names the header, never its value.
                        malformed.append(
                            "header \(OTLPEnvironmentReader.quoted(OTLPExporterConfiguration.printableHeaderName(key))): \(problem)")
                    } else {
                        headers = OTLPExporterConfiguration.merging([key: value], over: headers)
                    }
                }
                for problem in malformed { reader.warn(headersName, "\(problem); that entry is ignored") }
                if !headers.isEmpty {
                    if let scope {
                        exporter[scope].headers = OTLPExporterConfiguration.merging(headers, over: exporter[scope].headers ?? [:])
                    } else {
                        exporter.headers = OTLPExporterConfiguration.merging(headers, over: exporter.headers)
                    }
                    configuredBy.insert(tag)
                }
            }
            if let compression = reader.choice("\(prefix)\(infix)COMPRESSION", OTLPCompression.allCases.map { ($0.rawValue, $0) }) {
                if let scope { exporter[scope].compression = compression } else { exporter.compression = compression }
                configuredBy.insert(tag)
            }
            if let timeout = reader.milliseconds(
                "\(prefix)\(infix)TIMEOUT", in: OTLPExporterConfiguration.timeoutSecondsRange, zeroMeansIndefinite: true)
            {
                if let scope { exporter[scope].timeoutSeconds = timeout } else { exporter.timeoutSeconds = timeout }
                configuredBy.insert(tag)
            }
            if let value = reader.choice(
                "\(prefix)\(infix)PROTOCOL", OTLPHTTPProtocol.allCases.map { ($0.rawValue, $0) }, rejection: OTLPHTTPProtocol.rejection(of:)
            ) {
                if let scope { exporter[scope].protocol = value } else { exporter.protocol = value }
                configuredBy.insert(tag)
            }
            // The TLS files (PEM): a private CA, a client certificate and its key. They say nothing of where to
            // deliver, so they alone make no `otlp`.
            let tlsSettings: [(String, WritableKeyPath<OTLPExporterConfiguration.TLSFiles, String?>)] = [
                ("CERTIFICATE", \.certificate), ("CLIENT_KEY", \.clientKey), ("CLIENT_CERTIFICATE", \.clientCertificate),
            ]
            for (setting, keyPath) in tlsSettings {
                let name = "\(prefix)\(infix)\(setting)"
                guard let file = reader.value(name) else { continue }
                tlsVariables.append(name)
                guard !file.isEmpty else {
                    reader.warn(name, "must be a file's path; ignored")
                    continue
                }
                if let scope {
                    var files = exporter[scope].tls ?? OTLPExporterConfiguration.TLSFiles()
                    files[keyPath: keyPath] = file
                    exporter[scope].tls = files
                } else {
                    exporter.tls[keyPath: keyPath] = file
                }
            }
            // Only gRPC exporters have an insecure mode; `http` or `https` in the endpoint decides here.
            if reader.value("\(prefix)\(infix)INSECURE") != nil {
                reader.warn("\(prefix)\(infix)INSECURE", "applies to gRPC only (here the endpoint's http or https decides); ignored")
            }
        }

        // Not the specification's: the compression level of gzip bodies (zlib's scale). Like the TLS files, it alone makes no `otlp`.
        let gzipLevelName = "\(prefix)GZIP_LEVEL"
        if let level = reader.integer(gzipLevelName, in: OTLPGzip.levelRange) {
            exporter.gzipLevel = level
            tlsVariables.append(gzipLevelName)
        }

        // Which signals are delivered: as configured, or, for a new `otlp`, the ones its variables concern.
        var delivered: [OTLPSignal: Bool] = [:]
        for signal in OTLPSignal.sdkSignals {
            delivered[signal] = otlp.map { $0[signal].enabled } ?? (configuredBy.contains("") || configuredBy.contains(signal.rawValue))
        }
        for signal in OTLPSignal.sdkSignals {
            let name = "OTEL_\(signal.rawValue.uppercased())_EXPORTER"
            guard var names = reader.list(name) else { continue }
            for unknown in names where !["otlp", "console", "none"].contains(unknown) {
                let reason = unknown == "logging" ? "deprecated, use console" : "not supported (otlp, console or none)"
                reader.warn(name, "exporter \(OTLPEnvironmentReader.quoted(unknown)) is \(reason); it is ignored")
            }
            names.removeAll { !["otlp", "console", "none"].contains($0) }
            if names.contains("none"), names.count > 1 {
                reader.warn(name, "none cannot be combined with other exporters; none is ignored")
                names.removeAll { $0 == "none" }
            }
            guard !names.isEmpty else { continue }
            delivered[signal] = names.contains("otlp")
            if names == ["none"] {
                self[output: signal].path = nil
            } else if names.contains("console") {
                self[output: signal] = Output(path: "stdout", framing: .jsonl, gzip: false)
            }
        }
        if otlp == nil, !delivered.values.contains(true) {
            for name in tlsVariables {
                reader.warn(name, "no OTLP delivery is configured (set OTEL_EXPORTER_OTLP_ENDPOINT or otlp); ignored")
            }
            return
        }
        for signal in OTLPSignal.sdkSignals { exporter[signal].enabled = delivered[signal] ?? true }
        otlp = exporter
    }

    /// The output of `signal`.
    private subscript(output signal: OTLPSignal) -> Output {
        get {
            switch signal {
            case .traces: traces
            case .logs: logs
            case .metrics: preconditionFailure("the telemetry SDK configures traces and logs, not metrics")
            }
        }
        set {
            switch signal {
            case .traces: traces = newValue
            case .logs: logs = newValue
            case .metrics: preconditionFailure("the telemetry SDK configures traces and logs, not metrics")
            }
        }
    }

    // MARK: Sampling

    private static func sampling(_ reader: inout OTLPEnvironmentReader) -> Sampling? {
        let argument = "OTEL_TRACES_SAMPLER_ARG"
        let samplers: [(String, (parentBased: Bool, ratio: Double?))] = [
            ("always_on", (false, 1)), ("always_off", (false, 0)), ("traceidratio", (false, nil)),
            ("parentbased_always_on", (true, 1)), ("parentbased_always_off", (true, 0)), ("parentbased_traceidratio", (true, nil)),
        ]
        guard reader.value("OTEL_TRACES_SAMPLER") != nil else {
            if reader.value(argument) != nil { reader.warn(argument, "used only with OTEL_TRACES_SAMPLER; ignored") }
            return nil
        }
        guard let sampler = reader.choice("OTEL_TRACES_SAMPLER", samplers) else {
            if reader.value(argument) != nil { reader.warn(argument, "OTEL_TRACES_SAMPLER is ignored, so is this") }
            return nil
        }
        if let ratio = sampler.ratio {
            if reader.value(argument) != nil { reader.warn(argument, "not used by this sampler; ignored") }
            return Sampling(ratio: ratio, parentBased: sampler.parentBased)
        }
        // The specification's default ratio is 1 when the argument is unset or invalid.
        return Sampling(ratio: reader.number(argument, in: 0...1) ?? 1, parentBased: sampler.parentBased)
    }

    // MARK: Batching

    /// `batch` with the `<prefix>*` variables applied, or `nil` when none is set and valid.
    private static func applyingBatch(
        _ prefix: String, to batch: OTLPBatchConfiguration, _ reader: inout OTLPEnvironmentReader
    ) -> OTLPBatchConfiguration? {
        var batch = batch
        var changed = false
        if let delay = reader.milliseconds("\(prefix)SCHEDULE_DELAY", in: OTLPBatchConfiguration.scheduleDelaySecondsRange) {
            batch.scheduleDelaySeconds = delay
            changed = true
        }
        if let timeout = reader.milliseconds(
            "\(prefix)EXPORT_TIMEOUT", in: OTLPBatchConfiguration.exportTimeoutSecondsRange, zeroMeansIndefinite: true)
        {
            batch.exportTimeoutSeconds = timeout
            changed = true
        }
        // Not the specification's: what a caller does when the queue is full, and how long it waits.
        if let whenFull = reader.choice("\(prefix)WHEN_FULL", OTLPBatchConfiguration.WhenFull.allCases.map { ($0.rawValue, $0) }) {
            batch.whenFull = whenFull
            changed = true
        }
        if let timeout = reader.milliseconds("\(prefix)WHEN_FULL_TIMEOUT", in: OTLPBatchConfiguration.whenFullTimeoutSecondsRange) {
            batch.whenFullTimeoutSeconds = timeout
            changed = true
        }
        let queueName = "\(prefix)MAX_QUEUE_SIZE"
        if let queue = reader.integer(queueName, in: OTLPBatchConfiguration.maxQueueSizeRange) {
            batch.maxQueueSize = queue
            changed = true
        }
        let batchName = "\(prefix)MAX_EXPORT_BATCH_SIZE"
        let sizeRange =
            OTLPBatchConfiguration.maxQueueSizeRange.contains(batch.maxQueueSize)
            ? 1...batch.maxQueueSize : OTLPBatchConfiguration.maxQueueSizeRange
        if let size = reader.integer(batchName, in: sizeRange, unit: sizeRange.upperBound == batch.maxQueueSize ? " (the queue size)" : "")
        {
            batch.maxExportBatchSize = size
            changed = true
        }
        if changed, batch.maxExportBatchSize > batch.maxQueueSize, OTLPBatchConfiguration.maxQueueSizeRange.contains(batch.maxQueueSize) {
            reader.warn(
                queueName,
                "smaller than the export batch size \(batch.maxExportBatchSize); the batch size is lowered to \(batch.maxQueueSize)")
            batch.maxExportBatchSize = batch.maxQueueSize
        }
        return changed ? batch : nil
    }

    // MARK: Limits

    private static func applyingLimits(to limits: OTLPLimits, _ reader: inout OTLPEnvironmentReader) -> OTLPLimits {
        var limits = limits
        let lengthRange = 0...OTLPLimits.maxAttributeValueLength
        /// The value of the general variable, overridden by the span one, else by the log record one (warned
        /// about when both signal variables are set and differ).
        func shared(_ general: String, span: String, logRecord: String?, in range: ClosedRange<Int>) -> Int? {
            let generalValue = reader.integer(general, in: range)
            let spanValue = reader.integer(span, in: range)
            let logValue = logRecord.flatMap { reader.integer($0, in: range) }
            if let logRecord, let spanValue, let logValue, spanValue != logValue {
                reader.warn(logRecord, "spans and log records share one limit and \(span) sets it to \(spanValue); ignored")
            }
            return spanValue ?? logValue ?? generalValue
        }
        if let length = shared(
            "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", span: "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT",
            logRecord: "OTEL_LOGRECORD_ATTRIBUTE_VALUE_LENGTH_LIMIT", in: lengthRange)
        {
            limits.attributeValueLengthLimit = length
        }
        if let count = shared(
            "OTEL_ATTRIBUTE_COUNT_LIMIT", span: "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", logRecord: "OTEL_LOGRECORD_ATTRIBUTE_COUNT_LIMIT",
            in: OTLPLimits.attributeCountRange)
        {
            limits.attributeCountLimit = count
        }
        if let count = reader.integer("OTEL_SPAN_EVENT_COUNT_LIMIT", in: OTLPLimits.eventCountRange) { limits.eventCountLimit = count }
        if let count = reader.integer("OTEL_SPAN_LINK_COUNT_LIMIT", in: OTLPLimits.eventCountRange) { limits.linkCountLimit = count }
        if let count = reader.integer("OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT", in: OTLPLimits.attributeCountRange) {
            limits.attributePerEventCountLimit = count
        }
        if let count = reader.integer("OTEL_LINK_ATTRIBUTE_COUNT_LIMIT", in: OTLPLimits.attributeCountRange) {
            limits.attributePerLinkCountLimit = count
        }
        return limits
    }
}
