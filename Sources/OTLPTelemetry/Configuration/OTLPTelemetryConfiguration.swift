public import Foundation
public import OTLPWire

/// Everything that sets up the pipeline, as one value: from code, or from a JSON file with
/// ``load(contentsOf:)`` (which reads what `Encodable` writes). Every field has a default; a JSON file needs
/// only what differs.
///
/// ```json
/// { "service": { "name": "checkout", "version": "1.4.0" },
///   "traces": { "path": "/var/lib/checkout/traces.u32be.bin" },
///   "logs": { "path": "/var/lib/checkout/logs.jsonl.gz", "framing": "jsonl", "gzip": true },
///   "rotation": { "maxFileBytes": 104857600, "maxFiles": 5 } }
/// ```
public struct OTLPTelemetryConfiguration: Sendable, Equatable, Encodable, OTLPConfigurationDecodable {
    /// The service this process is.
    public struct Service: Sendable, Equatable, Encodable, OTLPConfigurationDecodable {
        /// `service.name`; default: `unknown_service:<executable name>`.
        public var name: String?
        /// `service.version`; default: none.
        public var version: String?
        /// More resource attributes (strings); they win over detected ones. At most
        /// 1,000; values are cut to ``OTLPLimits/attributeValueLengthLimit`` like any
        /// attribute value.
        public var attributes: [String: String]

        /// Most entries in ``attributes``: far below the readers' attribute limit per resource, which the
        /// detected attributes share.
        package static let maxAttributes = 1_000

        /// No name, version or attributes: what an omitted argument or JSON key means.
        public static let `default` = Service(name: nil, version: nil, attributes: [:])

        /// A service with ``default``'s values unless given.
        public init(
            name: String? = Service.default.name, version: String? = Service.default.version,
            attributes: [String: String] = Service.default.attributes
        ) {
            self.name = name
            self.version = version
            self.attributes = attributes
        }
    }

    /// Where one signal goes.
    public struct Output: Sendable, Equatable, Encodable, OTLPConfigurationDecodable {
        /// A file path, or `stdout` / `stderr` (`-` is stdout). Default: none (the signal is not exported).
        public var path: String?
        /// Default `OTLPFraming.u32be`.
        public var framing: OTLPFraming
        /// One gzip member per batch. Default `false`.
        public var gzip: Bool
        /// Each record one zstd frame behind a `u32be` length of the frame, protobuf or (with `jsonl`) OTLP JSON:
        /// the OpenTelemetry Collector file exporter's `compression: zstd`. Default `false`.
        public var zstd: Bool
        /// The compression level (zlib's scale) of ``gzip``: 1 is fastest, 9 smallest. Default 1 (chosen by measurement: the Configuration article), range 1...9 (in code: clamped).
        public var gzipLevel: Int

        /// No path (the signal is not exported), u32be framing, no compression: what an omitted argument or JSON
        /// key means.
        public static let `default` = Output(path: nil, framing: .u32be, gzip: false, zstd: false, gzipLevel: OTLPGzip.defaultLevel)

        /// An output with ``default``'s values unless given.
        public init(
            path: String? = Output.default.path, framing: OTLPFraming = Output.default.framing, gzip: Bool = Output.default.gzip,
            zstd: Bool = Output.default.zstd, gzipLevel: Int = Output.default.gzipLevel
        ) {
            self.path = path
            self.framing = framing
            self.gzip = gzip
            self.zstd = zstd
            self.gzipLevel = gzipLevel
        }
    }

    /// File rotation; 0 disables a limit.
    public struct Rotation: Sendable, Equatable, Encodable, OTLPConfigurationDecodable {
        /// Start a new file before one would grow past this size. Default 0 (no size limit), range
        /// 0...2^50 (1 PiB).
        public var maxFileBytes: Int
        /// Start a new file when the current one is older than this. Default 0 (no age limit), range
        /// 0...31,536,000 (365 days).
        public var maxAgeSeconds: Double
        /// Files kept, the current one included and earlier runs' files counted (`traces.u32be.bin`, then
        /// `traces.1.u32be.bin`, the newest rotated, and so on); older ones are deleted, and the items this run
        /// wrote into them counted as dropped (`retention`). Default 5, range 1...10,000.
        public var maxFiles: Int

        /// No size or age limit, 5 files: what an omitted argument or JSON key means.
        public static let `default` = Rotation(maxFileBytes: 0, maxAgeSeconds: 0, maxFiles: 5)

        /// Rotation with ``default``'s values unless given.
        public init(
            maxFileBytes: Int = Rotation.default.maxFileBytes, maxAgeSeconds: Double = Rotation.default.maxAgeSeconds,
            maxFiles: Int = Rotation.default.maxFiles
        ) {
            self.maxFileBytes = maxFileBytes
            self.maxAgeSeconds = maxAgeSeconds
            self.maxFiles = maxFiles
        }

        /// Accepted ``maxFileBytes`` values.
        package static let maxFileBytesRange = 0...(1 << 50)
        /// Accepted ``maxAgeSeconds`` values.
        package static let maxAgeSecondsRange = 0.0...31_536_000
        /// Accepted ``maxFiles`` values.
        package static let maxFilesRange = 1...10_000

        /// These settings with every value brought into its range; a NaN becomes the default.
        package var clamped: Self {
            Self(
                maxFileBytes: OTLPSettingClamp.clamp(maxFileBytes, to: Self.maxFileBytesRange),
                maxAgeSeconds: OTLPSettingClamp.clamp(maxAgeSeconds, to: Self.maxAgeSecondsRange, default: Self.default.maxAgeSeconds),
                maxFiles: OTLPSettingClamp.clamp(maxFiles, to: Self.maxFilesRange))
        }

        func violations() -> [OTLPConfigurationError] {
            [
                OTLPConfigurationError.check(maxFileBytes, in: Self.maxFileBytesRange, "rotation.maxFileBytes", unit: " bytes"),
                OTLPConfigurationError.check(maxAgeSeconds, in: Self.maxAgeSecondsRange, "rotation.maxAgeSeconds", unit: " seconds"),
                OTLPConfigurationError.check(maxFiles, in: Self.maxFilesRange, "rotation.maxFiles"),
            ].compactMap { $0 }
        }
    }

    /// Sampling of new traces.
    public struct Sampling: Sendable, Equatable, Encodable, OTLPConfigurationDecodable {
        /// Fraction of traces kept, decided by trace ID. Default 1 (all), range 0...1 (in code: clamped,
        /// NaN counts as 1).
        public var ratio: Double
        /// Follow the parent's decision when there is a parent. Default `true`.
        public var parentBased: Bool

        /// Every trace kept, parent's decision followed: what an omitted argument or JSON key means.
        public static let `default` = Sampling(ratio: 1, parentBased: true)

        /// Sampling with ``default``'s values unless given.
        public init(ratio: Double = Sampling.default.ratio, parentBased: Bool = Sampling.default.parentBased) {
            self.ratio = ratio
            self.parentBased = parentBased
        }

        /// The sampler these settings describe.
        public var sampler: any OTLPSampler {
            let root: any OTLPSampler = ratio.isNaN || ratio >= 1 ? OTLPAlwaysOnSampler() : OTLPTraceIDRatioSampler(ratio: ratio)
            return parentBased ? OTLPParentBasedSampler(root: root) : root
        }
    }

    /// The service this process is: name, version, more resource attributes.
    public var service: Service
    /// Where spans go; default: nowhere (not exported).
    public var traces: Output
    /// Where log records go; default: nowhere (not exported).
    public var logs: Output
    /// Default ``OTLPDurability/flush``.
    public var durability: OTLPDurability
    /// File rotation for both signals; default: no size or age limit, 5 files.
    public var rotation: Rotation
    /// Batching for both signals; defaults are the specification's.
    public var batch: OTLPBatchConfiguration
    /// Span and log record limits; defaults are the specification's.
    public var limits: OTLPLimits
    /// Sampling of new traces; default: every trace kept, the parent's decision followed.
    public var sampling: Sampling
    /// Delivery of both signals to a collector over OTLP/HTTP, beside any file output they also have; default
    /// `nil`: nothing is delivered. A signal is left out with its ``OTLPExporterConfiguration/SignalOverride/enabled``.
    public var otlp: OTLPExporterConfiguration?
    /// Batching of log records when it differs from ``batch`` (the specification's `OTEL_BLRP_*` variables set
    /// it); default `nil`: log records are batched as ``batch`` says.
    public var logsBatch: OTLPBatchConfiguration?
    /// Whether ``OTLPTelemetry/bootstrap(logLevel:)`` keeps swift-log's lines on the console (standard error,
    /// swift-log's `StreamLogHandler`) beside the log records it exports. Default `true`; off, the log
    /// records are the only trace of a log call. Never on while an output writes to `stderr` (the lines would
    /// be mixed into its OTLP stream).
    public var consoleLogging: Bool
    /// How long ``OTLPTelemetry/shutdown()`` may take, in seconds, whatever the collector does (down, or
    /// never answering): what is not delivered by then stays in the spool when there is one
    /// (``OTLPExporterConfiguration/spool``), and is counted as dropped otherwise (`shutdown_timeout`).
    /// Default 5, range 0.1...86,400.
    public var shutdownTimeoutSeconds: Double

    /// Accepted ``shutdownTimeoutSeconds`` values.
    package static let shutdownTimeoutSecondsRange = 0.1...86_400.0

    /// Every part's own default, ``OTLPDurability/flush`` durability, no delivery to a collector: what an
    /// omitted argument or JSON key means.
    public static let `default` = OTLPTelemetryConfiguration(
        service: .default, traces: .default, logs: .default, durability: .flush, rotation: .default, batch: .default,
        limits: .default, sampling: .default, otlp: nil, logsBatch: nil, consoleLogging: true, shutdownTimeoutSeconds: 5)

    /// A configuration with ``default``'s values unless given.
    public init(
        service: Service = OTLPTelemetryConfiguration.default.service, traces: Output = OTLPTelemetryConfiguration.default.traces,
        logs: Output = OTLPTelemetryConfiguration.default.logs, durability: OTLPDurability = OTLPTelemetryConfiguration.default.durability,
        rotation: Rotation = OTLPTelemetryConfiguration.default.rotation,
        batch: OTLPBatchConfiguration = OTLPTelemetryConfiguration.default.batch,
        limits: OTLPLimits = OTLPTelemetryConfiguration.default.limits, sampling: Sampling = OTLPTelemetryConfiguration.default.sampling,
        otlp: OTLPExporterConfiguration? = OTLPTelemetryConfiguration.default.otlp,
        logsBatch: OTLPBatchConfiguration? = OTLPTelemetryConfiguration.default.logsBatch,
        consoleLogging: Bool = OTLPTelemetryConfiguration.default.consoleLogging,
        shutdownTimeoutSeconds: Double = OTLPTelemetryConfiguration.default.shutdownTimeoutSeconds
    ) {
        self.consoleLogging = consoleLogging
        self.shutdownTimeoutSeconds = shutdownTimeoutSeconds
        self.limits = limits
        self.sampling = sampling
        self.otlp = otlp
        self.logsBatch = logsBatch
        self.service = service
        self.traces = traces
        self.logs = logs
        self.durability = durability
        self.rotation = rotation
        self.batch = batch
    }

    /// Reads a JSON configuration. Unknown keys are ignored and listed in `warnings` (in key path order);
    /// a wrong type or an invalid value throws an error naming the key path.
    public static func load(
        json: Data
    ) throws(OTLPConfigurationError) -> (configuration: OTLPTelemetryConfiguration, warnings: [OTLPConfigurationWarning]) {
        let configuration: OTLPTelemetryConfiguration
        let unknownKeys = OTLPUnknownKeyCollector()
        do {
            let decoder = JSONDecoder()
            decoder.userInfo[OTLPUnknownKeyCollector.userInfoKey] = unknownKeys
            configuration = try decoder.decode(OTLPTelemetryConfiguration.self, from: json)
        } catch let error as DecodingError {
            var problem = OTLPConfigurationError(decodingError: error)
            if problem.keyPath.isEmpty, problem.message == "not valid JSON" {
                // JSONDecoder drops the parser's reason; JSONSerialization says it ("Number 1e400 is not
                // representable in Swift.", "… around line 3, column 7.").
                if let reason = parserReason(json) { problem.message += ": \(reason)" }
            }
            throw problem
        } catch {
            throw OTLPConfigurationError(keyPath: "", message: "\(error)")
        }
        try configuration.validate()
        return (configuration, unknownKeys.warnings)
    }

    /// Why JSONSerialization refuses `json`, if it does.
    private static func parserReason(_ json: Data) -> String? {
        do {
            _ = try JSONSerialization.jsonObject(with: json)
            return nil
        } catch {
            return (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
        }
    }

    /// ``load(json:)`` from a file.
    public static func load(
        contentsOf url: URL
    ) throws(OTLPConfigurationError) -> (configuration: OTLPTelemetryConfiguration, warnings: [OTLPConfigurationWarning]) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw OTLPConfigurationError(keyPath: "", message: "cannot read \(url.path): \(error.localizedDescription)")
        }
        return try load(json: data)
    }

    /// Checks values that decode but make no sense: every numeric setting against its documented range
    /// (NaN and infinities are out of every range), and the settings against each other. Throws the first
    /// problem; ``OTLPTelemetry`` reports them all to its diagnostics hook.
    public func validate() throws(OTLPConfigurationError) {
        if let first = problems.first { throw first }
    }

    /// Every problem ``validate()`` would report, section by section (service, outputs, rotation, batch,
    /// limits, sampling, otlp, logsBatch, shutdownTimeoutSeconds).
    package var problems: [OTLPConfigurationError] {
        var problems: [OTLPConfigurationError] = []
        func require(_ condition: Bool, _ keyPath: String, _ message: String) {
            if !condition { problems.append(OTLPConfigurationError(keyPath: keyPath, message: message)) }
        }
        require(service.name.map { !$0.isEmpty } ?? true, "service.name", "must not be empty")
        require(traces.framing != .unframed, "traces.framing", "must be u32be, varint or jsonl")
        require(logs.framing != .unframed, "logs.framing", "must be u32be, varint or jsonl")
        if let path = traces.path, let other = logs.path {
            require(
                path != other || path == "stderr" || path == "-" || path == "stdout", "logs.path",
                "must differ from traces.path (one signal per file)")
        }
        if service.attributes.count > Service.maxAttributes {
            problems.append(
                OTLPConfigurationError(
                    keyPath: "service.attributes",
                    message: "must have at most \(Service.maxAttributes) entries, has \(service.attributes.count)"))
        }
        for (output, key) in [(traces, "traces"), (logs, "logs")] {
            if let problem = OTLPConfigurationError.check(output.gzipLevel, in: OTLPGzip.levelRange, "\(key).gzipLevel") {
                problems.append(problem)
            }
        }
        problems += rotation.violations()
        problems += batch.violations(prefix: "batch.")
        problems += limits.violations(prefix: "limits.")
        if let problem = OTLPConfigurationError.check(sampling.ratio, in: 0...1, "sampling.ratio") { problems.append(problem) }
        problems += otlp?.violations(prefix: "otlp.") ?? []
        problems += logsBatch?.violations(prefix: "logsBatch.") ?? []
        if let problem = OTLPConfigurationError.check(
            shutdownTimeoutSeconds, in: Self.shutdownTimeoutSecondsRange, "shutdownTimeoutSeconds", unit: " seconds")
        {
            problems.append(problem)
        }
        return problems
    }

    /// This configuration with every numeric value brought into its range (what ``OTLPTelemetry`` runs
    /// with); a NaN becomes the setting's default.
    package var clamped: OTLPTelemetryConfiguration {
        var copy = self
        if service.attributes.count > Service.maxAttributes {
            copy.service.attributes = Dictionary(
                uniqueKeysWithValues: service.attributes.sorted { $0.key < $1.key }.prefix(Service.maxAttributes).map { ($0.key, $0.value) }
            )
        }
        copy.traces.gzipLevel = OTLPSettingClamp.clamp(traces.gzipLevel, to: OTLPGzip.levelRange)
        copy.logs.gzipLevel = OTLPSettingClamp.clamp(logs.gzipLevel, to: OTLPGzip.levelRange)
        copy.rotation = rotation.clamped
        copy.batch = batch.clamped
        copy.limits = limits.clamped
        copy.sampling.ratio = OTLPSettingClamp.clamp(sampling.ratio, to: 0...1, default: Sampling.default.ratio)
        copy.otlp = otlp?.clamped
        copy.logsBatch = logsBatch?.clamped
        copy.shutdownTimeoutSeconds = OTLPSettingClamp.clamp(
            shutdownTimeoutSeconds, to: Self.shutdownTimeoutSecondsRange, default: Self.default.shutdownTimeoutSeconds)
        return copy
    }

    /// The batching of `signal`: ``batch`` for spans; ``logsBatch``, else ``batch``, for log records.
    package func batch(for signal: OTLPSignal) -> OTLPBatchConfiguration {
        signal == .logs ? logsBatch ?? batch : batch
    }

    /// This configuration with nothing exported: no file or standard-output path for either signal and no
    /// delivery to a collector (``otlp`` `nil`), every other setting kept. `OTEL_SDK_DISABLED=true` applies
    /// it (see ``applyingEnvironment(_:)``): spans and log records are still made, and counted as received,
    /// but go nowhere.
    public var disabled: OTLPTelemetryConfiguration {
        var copy = self
        copy.traces.path = nil
        copy.logs.path = nil
        copy.otlp = nil
        return copy
    }
}

extension OTLPFraming: Encodable, OTLPConfigurationDecodable {}

// Decoding with every key optional: a JSON file names only what differs from the defaults.
extension OTLPTelemetryConfiguration {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case service, traces, logs, durability, rotation, batch, limits, sampling, otlp, logsBatch, consoleLogging,
            shutdownTimeoutSeconds
    }

    package init(configurationFrom decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try decoder.reportUnknownKeys(CodingKeys.self)
        let defaults = Self.default
        service = try container.decodeIfPresent(Service.self, forKey: .service) ?? defaults.service
        traces = try container.decodeIfPresent(Output.self, forKey: .traces) ?? defaults.traces
        logs = try container.decodeIfPresent(Output.self, forKey: .logs) ?? defaults.logs
        durability = try container.decodeIfPresent(OTLPDurability.self, forKey: .durability) ?? defaults.durability
        rotation = try container.decodeIfPresent(Rotation.self, forKey: .rotation) ?? defaults.rotation
        batch = try container.decodeIfPresent(OTLPBatchConfiguration.self, forKey: .batch) ?? defaults.batch
        limits = try container.decodeIfPresent(OTLPLimits.self, forKey: .limits) ?? defaults.limits
        sampling = try container.decodeIfPresent(Sampling.self, forKey: .sampling) ?? defaults.sampling
        otlp = try container.decodeIfPresent(OTLPExporterConfiguration.self, forKey: .otlp) ?? defaults.otlp
        logsBatch = try container.decodeIfPresent(OTLPBatchConfiguration.self, forKey: .logsBatch) ?? defaults.logsBatch
        consoleLogging = try container.decodeIfPresent(Bool.self, forKey: .consoleLogging) ?? defaults.consoleLogging
        shutdownTimeoutSeconds =
            try container.decodeIfPresent(Double.self, forKey: .shutdownTimeoutSeconds) ?? defaults.shutdownTimeoutSeconds
    }

    /// Encodes every section; no ``otlp`` or ``logsBatch`` is written as `null`, which decodes as their default.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(service, forKey: .service)
        try container.encode(traces, forKey: .traces)
        try container.encode(logs, forKey: .logs)
        try container.encode(durability, forKey: .durability)
        try container.encode(rotation, forKey: .rotation)
        try container.encode(batch, forKey: .batch)
        try container.encode(limits, forKey: .limits)
        try container.encode(sampling, forKey: .sampling)
        if let otlp { try container.encode(otlp, forKey: .otlp) } else { try container.encodeNil(forKey: .otlp) }
        if let logsBatch { try container.encode(logsBatch, forKey: .logsBatch) } else { try container.encodeNil(forKey: .logsBatch) }
        try container.encode(consoleLogging, forKey: .consoleLogging)
        try container.encode(shutdownTimeoutSeconds, forKey: .shutdownTimeoutSeconds)
    }
}

extension OTLPTelemetryConfiguration.Service {
    enum CodingKeys: String, CodingKey, CaseIterable { case name, version, attributes }

    package init(configurationFrom decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try decoder.reportUnknownKeys(CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name) ?? Self.default.name
        version = try container.decodeIfPresent(String.self, forKey: .version) ?? Self.default.version
        attributes = try container.decodeIfPresent([String: String].self, forKey: .attributes) ?? Self.default.attributes
    }
}

extension OTLPTelemetryConfiguration.Output {
    enum CodingKeys: String, CodingKey, CaseIterable { case path, framing, gzip, zstd, gzipLevel }

    package init(configurationFrom decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try decoder.reportUnknownKeys(CodingKeys.self)
        path = try container.decodeIfPresent(String.self, forKey: .path) ?? Self.default.path
        framing = try container.decodeIfPresent(OTLPFraming.self, forKey: .framing) ?? Self.default.framing
        gzip = try container.decodeIfPresent(Bool.self, forKey: .gzip) ?? Self.default.gzip
        zstd = try container.decodeIfPresent(Bool.self, forKey: .zstd) ?? Self.default.zstd
        gzipLevel = try container.decodeIntegerIfPresent(forKey: .gzipLevel) ?? Self.default.gzipLevel
    }
}

extension OTLPTelemetryConfiguration.Rotation {
    enum CodingKeys: String, CodingKey, CaseIterable { case maxFileBytes, maxAgeSeconds, maxFiles }

    package init(configurationFrom decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try decoder.reportUnknownKeys(CodingKeys.self)
        maxFileBytes = try container.decodeIntegerIfPresent(forKey: .maxFileBytes) ?? Self.default.maxFileBytes
        maxAgeSeconds = try container.decodeIfPresent(Double.self, forKey: .maxAgeSeconds) ?? Self.default.maxAgeSeconds
        maxFiles = try container.decodeIntegerIfPresent(forKey: .maxFiles) ?? Self.default.maxFiles
    }
}

extension OTLPBatchConfiguration {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case maxQueueSize, maxExportBatchSize, scheduleDelaySeconds, exportTimeoutSeconds, whenFull, whenFullTimeoutSeconds
    }

    package init(configurationFrom decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try decoder.reportUnknownKeys(CodingKeys.self)
        let defaults = Self.default
        maxQueueSize = try container.decodeIntegerIfPresent(forKey: .maxQueueSize) ?? defaults.maxQueueSize
        maxExportBatchSize = try container.decodeIntegerIfPresent(forKey: .maxExportBatchSize) ?? defaults.maxExportBatchSize
        scheduleDelaySeconds = try container.decodeIfPresent(Double.self, forKey: .scheduleDelaySeconds) ?? defaults.scheduleDelaySeconds
        exportTimeoutSeconds = try container.decodeIfPresent(Double.self, forKey: .exportTimeoutSeconds) ?? defaults.exportTimeoutSeconds
        whenFull = try container.decodeIfPresent(WhenFull.self, forKey: .whenFull) ?? defaults.whenFull
        whenFullTimeoutSeconds =
            try container.decodeIfPresent(Double.self, forKey: .whenFullTimeoutSeconds) ?? defaults.whenFullTimeoutSeconds
    }
}

extension OTLPTelemetryConfiguration.Sampling {
    enum CodingKeys: String, CodingKey, CaseIterable { case ratio, parentBased }

    package init(configurationFrom decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try decoder.reportUnknownKeys(CodingKeys.self)
        ratio = try container.decodeIfPresent(Double.self, forKey: .ratio) ?? Self.default.ratio
        parentBased = try container.decodeIfPresent(Bool.self, forKey: .parentBased) ?? Self.default.parentBased
    }
}

extension OTLPLimits {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case attributeCountLimit, attributeValueLengthLimit, eventCountLimit, linkCountLimit, attributePerEventCountLimit,
            attributePerLinkCountLimit
    }

    package init(configurationFrom decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try decoder.reportUnknownKeys(CodingKeys.self)
        let defaults = Self.default
        attributeCountLimit = try container.decodeIntegerIfPresent(forKey: .attributeCountLimit) ?? defaults.attributeCountLimit
        // Absent: the default (64 Ki); `null`: no limit.
        if !container.contains(.attributeValueLengthLimit) {
            attributeValueLengthLimit = defaults.attributeValueLengthLimit
        } else if try container.decodeNil(forKey: .attributeValueLengthLimit) {
            attributeValueLengthLimit = nil
        } else {
            attributeValueLengthLimit = try container.decodeIntegerIfPresent(forKey: .attributeValueLengthLimit)
        }
        eventCountLimit = try container.decodeIntegerIfPresent(forKey: .eventCountLimit) ?? defaults.eventCountLimit
        linkCountLimit = try container.decodeIntegerIfPresent(forKey: .linkCountLimit) ?? defaults.linkCountLimit
        attributePerEventCountLimit =
            try container.decodeIntegerIfPresent(forKey: .attributePerEventCountLimit) ?? defaults.attributePerEventCountLimit
        attributePerLinkCountLimit =
            try container.decodeIntegerIfPresent(forKey: .attributePerLinkCountLimit) ?? defaults.attributePerLinkCountLimit
    }

    /// Encodes every limit; no value length limit is written as `null` (a missing key means the default).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(attributeCountLimit, forKey: .attributeCountLimit)
        // `null` says "no limit"; leaving the key out would mean the default.
        if let attributeValueLengthLimit {
            try container.encode(attributeValueLengthLimit, forKey: .attributeValueLengthLimit)
        } else {
            try container.encodeNil(forKey: .attributeValueLengthLimit)
        }
        try container.encode(eventCountLimit, forKey: .eventCountLimit)
        try container.encode(linkCountLimit, forKey: .linkCountLimit)
        try container.encode(attributePerEventCountLimit, forKey: .attributePerEventCountLimit)
        try container.encode(attributePerLinkCountLimit, forKey: .attributePerLinkCountLimit)
    }
}

extension KeyedDecodingContainer {
    /// An integer setting. Read as a JSON number first, so that `1.5`, `1e30` or `99999999999999999999` get an
    /// error naming the key (Foundation's `Int` decoding reports them as "not valid JSON", without a key).
    func decodeIntegerIfPresent(forKey key: Key) throws -> Int? {
        let number: Double?
        do {
            number = try decodeIfPresent(Double.self, forKey: key)
        } catch DecodingError.typeMismatch(_, let context) {
            throw DecodingError.typeMismatch(Int.self, context)
        }
        guard let number else { return nil }
        guard number.isFinite, number == number.rounded(.towardZero) else {
            throw DecodingError.typeMismatch(
                Int.self, .init(codingPath: codingPath + [key], debugDescription: "expected an integer, got \(number)"))
        }
        guard let value = Int(exactly: number) else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath + [key], debugDescription: "\(number) is out of range"))
        }
        return value
    }
}
