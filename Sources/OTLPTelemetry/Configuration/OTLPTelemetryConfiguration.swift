public import Foundation
public import OTLPWire

/// Everything that sets up the pipeline, as one `Codable` value: from code, or from a JSON file with
/// ``load(contentsOf:)``. Every field has a default; a JSON file needs only what differs.
///
/// ```json
/// { "service": { "name": "checkout", "version": "1.4.0" },
///   "traces": { "path": "/var/lib/checkout/traces.u32be.bin" },
///   "logs": { "path": "/var/lib/checkout/logs.jsonl.gz", "framing": "jsonl", "gzip": true },
///   "rotation": { "maxFileBytes": 104857600, "maxFiles": 5 } }
/// ```
public struct OTLPTelemetryConfiguration: Sendable, Equatable, Codable {
    /// The service this process is.
    public struct Service: Sendable, Equatable, Codable {
        /// `service.name`; default: `unknown_service:<executable name>`.
        public var name: String?
        /// `service.version`; default: none.
        public var version: String?
        /// More resource attributes (strings); they win over detected ones.
        public var attributes: [String: String]

        public init(name: String? = nil, version: String? = nil, attributes: [String: String] = [:]) {
            self.name = name
            self.version = version
            self.attributes = attributes
        }
    }

    /// Where one signal goes.
    public struct Output: Sendable, Equatable, Codable {
        /// A file path, or `stdout` / `stderr` (`-` is stdout). Default: none (the signal is not exported).
        public var path: String?
        /// Default ``OTLPFraming/u32be``.
        public var framing: OTLPFraming
        /// One gzip member per batch. Default `false`.
        public var gzip: Bool

        public init(path: String? = nil, framing: OTLPFraming = .u32be, gzip: Bool = false) {
            self.path = path
            self.framing = framing
            self.gzip = gzip
        }
    }

    /// File rotation; 0 disables a limit.
    public struct Rotation: Sendable, Equatable, Codable {
        /// Start a new file before one would grow past this size. Default 0 (no size limit).
        public var maxFileBytes: Int
        /// Start a new file when the current one is older than this. Default 0 (no age limit).
        public var maxAgeSeconds: Double
        /// Files kept, the current one included; older ones are deleted and their items counted as dropped
        /// (`retention`). Default 5.
        public var maxFiles: Int

        public init(maxFileBytes: Int = 0, maxAgeSeconds: Double = 0, maxFiles: Int = 5) {
            self.maxFileBytes = maxFileBytes
            self.maxAgeSeconds = maxAgeSeconds
            self.maxFiles = maxFiles
        }
    }

    /// Sampling of new traces.
    public struct Sampling: Sendable, Equatable, Codable {
        /// Fraction of traces kept, decided by trace ID. Default 1 (all).
        public var ratio: Double
        /// Follow the parent's decision when there is a parent. Default `true`.
        public var parentBased: Bool

        public init(ratio: Double = 1, parentBased: Bool = true) {
            self.ratio = ratio
            self.parentBased = parentBased
        }

        /// The sampler these settings describe.
        public var sampler: any OTLPSampler {
            let root: any OTLPSampler = ratio >= 1 ? OTLPAlwaysOnSampler() : OTLPTraceIDRatioSampler(ratio: ratio)
            return parentBased ? OTLPParentBasedSampler(root: root) : root
        }
    }

    public var service: Service
    public var traces: Output
    public var logs: Output
    /// Default ``OTLPDurability/flush``.
    public var durability: OTLPDurability
    public var rotation: Rotation
    /// Batching for both signals; defaults are the specification's.
    public var batch: OTLPBatchProcessor<OTLPStreamExporter<OTLPScopedSpan>>.Configuration
    /// Span and log record limits; defaults are the specification's.
    public var limits: OTLPLimits
    public var sampling: Sampling

    public init(
        service: Service = Service(), traces: Output = Output(), logs: Output = Output(), durability: OTLPDurability = .flush,
        rotation: Rotation = Rotation(), batch: OTLPBatchProcessor<OTLPStreamExporter<OTLPScopedSpan>>.Configuration = .init(),
        limits: OTLPLimits = OTLPLimits(), sampling: Sampling = Sampling()
    ) {
        self.limits = limits
        self.sampling = sampling
        self.service = service
        self.traces = traces
        self.logs = logs
        self.durability = durability
        self.rotation = rotation
        self.batch = batch
    }

    /// Reads a JSON configuration. Unknown keys are ignored and listed in `warnings`; a wrong type or an
    /// invalid value throws an error naming the key path.
    public static func load(json: Data) throws(OTLPConfigurationError) -> (configuration: OTLPTelemetryConfiguration, warnings: [String]) {
        let configuration: OTLPTelemetryConfiguration
        do {
            configuration = try JSONDecoder().decode(OTLPTelemetryConfiguration.self, from: json)
        } catch let error as DecodingError {
            throw OTLPConfigurationError(decodingError: error)
        } catch {
            throw OTLPConfigurationError(keyPath: "", message: "\(error)")
        }
        try configuration.validate()
        var warnings: [String] = []
        if let object = try? JSONSerialization.jsonObject(with: json) {
            unknownKeys(in: object, known: knownKeys, path: "", into: &warnings)
        }
        return (configuration, warnings)
    }

    /// ``load(json:)`` from a file.
    public static func load(contentsOf url: URL) throws(OTLPConfigurationError) -> (configuration: OTLPTelemetryConfiguration, warnings: [String]) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw OTLPConfigurationError(keyPath: "", message: "cannot read \(url.path): \(error.localizedDescription)")
        }
        return try load(json: data)
    }

    /// Checks values that decode but make no sense.
    public func validate() throws(OTLPConfigurationError) {
        func require(_ condition: Bool, _ keyPath: String, _ message: String) throws(OTLPConfigurationError) {
            if !condition { throw OTLPConfigurationError(keyPath: keyPath, message: message) }
        }
        try require(batch.maxQueueSize > 0, "batch.maxQueueSize", "must be positive")
        try require(batch.maxExportBatchSize > 0, "batch.maxExportBatchSize", "must be positive")
        try require(batch.maxExportBatchSize <= batch.maxQueueSize, "batch.maxExportBatchSize", "must not exceed batch.maxQueueSize")
        try require(batch.scheduleDelaySeconds > 0, "batch.scheduleDelaySeconds", "must be positive")
        try require(batch.exportTimeoutSeconds > 0, "batch.exportTimeoutSeconds", "must be positive")
        try require(rotation.maxFileBytes >= 0, "rotation.maxFileBytes", "must not be negative")
        try require(rotation.maxAgeSeconds >= 0, "rotation.maxAgeSeconds", "must not be negative")
        try require(rotation.maxFiles >= 1, "rotation.maxFiles", "must be at least 1")
        try require(traces.framing != .unframed, "traces.framing", "must be u32be, varint or jsonl")
        try require(logs.framing != .unframed, "logs.framing", "must be u32be, varint or jsonl")
        if let path = traces.path, let other = logs.path { try require(path != other || path == "stderr" || path == "-" || path == "stdout", "logs.path", "must differ from traces.path (one signal per file)") }
        try require(service.name.map { !$0.isEmpty } ?? true, "service.name", "must not be empty")
        try require((0...1).contains(sampling.ratio), "sampling.ratio", "must be between 0 and 1")
        try require(limits.attributeCountLimit >= 0, "limits.attributeCountLimit", "must not be negative")
        try require(limits.attributeValueLengthLimit.map { $0 >= 0 } ?? true, "limits.attributeValueLengthLimit", "must not be negative")
        try require(limits.eventCountLimit >= 0, "limits.eventCountLimit", "must not be negative")
        try require(limits.linkCountLimit >= 0, "limits.linkCountLimit", "must not be negative")
        try require(limits.attributePerEventCountLimit >= 0, "limits.attributePerEventCountLimit", "must not be negative")
        try require(limits.attributePerLinkCountLimit >= 0, "limits.attributePerLinkCountLimit", "must not be negative")
    }

    nonisolated(unsafe) private static let knownKeys: [String: Any] = [
        "service": ["name": 0, "version": 0, "attributes": "*"],
        "traces": ["path": 0, "framing": 0, "gzip": 0],
        "logs": ["path": 0, "framing": 0, "gzip": 0],
        "durability": 0,
        "rotation": ["maxFileBytes": 0, "maxAgeSeconds": 0, "maxFiles": 0],
        "batch": ["maxQueueSize": 0, "maxExportBatchSize": 0, "scheduleDelaySeconds": 0, "exportTimeoutSeconds": 0],
        "limits": ["attributeCountLimit": 0, "attributeValueLengthLimit": 0, "eventCountLimit": 0, "linkCountLimit": 0,
                   "attributePerEventCountLimit": 0, "attributePerLinkCountLimit": 0],
        "sampling": ["ratio": 0, "parentBased": 0],
    ]

    private static func unknownKeys(in object: Any, known: [String: Any], path: String, into warnings: inout [String]) {
        guard let dictionary = object as? [String: Any] else { return }
        for key in dictionary.keys.sorted() {
            let keyPath = path.isEmpty ? key : "\(path).\(key)"
            guard let expected = known[key] else {
                warnings.append("unknown configuration key \(keyPath) (ignored)")
                continue
            }
            if let nested = expected as? [String: Any] { unknownKeys(in: dictionary[key]!, known: nested, path: keyPath, into: &warnings) }
        }
    }
}

extension OTLPFraming: Codable {}

// Decoding with every key optional: a JSON file names only what differs from the defaults.
extension OTLPTelemetryConfiguration {
    enum CodingKeys: String, CodingKey { case service, traces, logs, durability, rotation, batch, limits, sampling }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = OTLPTelemetryConfiguration()
        service = try container.decodeIfPresent(Service.self, forKey: .service) ?? defaults.service
        traces = try container.decodeIfPresent(Output.self, forKey: .traces) ?? defaults.traces
        logs = try container.decodeIfPresent(Output.self, forKey: .logs) ?? defaults.logs
        durability = try container.decodeIfPresent(OTLPDurability.self, forKey: .durability) ?? defaults.durability
        rotation = try container.decodeIfPresent(Rotation.self, forKey: .rotation) ?? defaults.rotation
        batch = try container.decodeIfPresent(OTLPBatchProcessor<OTLPStreamExporter<OTLPScopedSpan>>.Configuration.self, forKey: .batch) ?? defaults.batch
        limits = try container.decodeIfPresent(OTLPLimits.self, forKey: .limits) ?? defaults.limits
        sampling = try container.decodeIfPresent(Sampling.self, forKey: .sampling) ?? defaults.sampling
    }
}

extension OTLPTelemetryConfiguration.Service {
    enum CodingKeys: String, CodingKey { case name, version, attributes }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        version = try container.decodeIfPresent(String.self, forKey: .version)
        attributes = try container.decodeIfPresent([String: String].self, forKey: .attributes) ?? [:]
    }
}

extension OTLPTelemetryConfiguration.Output {
    enum CodingKeys: String, CodingKey { case path, framing, gzip }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        path = try container.decodeIfPresent(String.self, forKey: .path)
        framing = try container.decodeIfPresent(OTLPFraming.self, forKey: .framing) ?? .u32be
        gzip = try container.decodeIfPresent(Bool.self, forKey: .gzip) ?? false
    }
}

extension OTLPTelemetryConfiguration.Rotation {
    enum CodingKeys: String, CodingKey { case maxFileBytes, maxAgeSeconds, maxFiles }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        maxFileBytes = try container.decodeIfPresent(Int.self, forKey: .maxFileBytes) ?? 0
        maxAgeSeconds = try container.decodeIfPresent(Double.self, forKey: .maxAgeSeconds) ?? 0
        maxFiles = try container.decodeIfPresent(Int.self, forKey: .maxFiles) ?? 5
    }
}

extension OTLPBatchProcessor.Configuration {
    enum CodingKeys: String, CodingKey { case maxQueueSize, maxExportBatchSize, scheduleDelaySeconds, exportTimeoutSeconds }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = Self()
        maxQueueSize = try container.decodeIfPresent(Int.self, forKey: .maxQueueSize) ?? defaults.maxQueueSize
        maxExportBatchSize = try container.decodeIfPresent(Int.self, forKey: .maxExportBatchSize) ?? defaults.maxExportBatchSize
        scheduleDelaySeconds = try container.decodeIfPresent(Double.self, forKey: .scheduleDelaySeconds) ?? defaults.scheduleDelaySeconds
        exportTimeoutSeconds = try container.decodeIfPresent(Double.self, forKey: .exportTimeoutSeconds) ?? defaults.exportTimeoutSeconds
    }
}

extension OTLPTelemetryConfiguration.Sampling {
    enum CodingKeys: String, CodingKey { case ratio, parentBased }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        ratio = try container.decodeIfPresent(Double.self, forKey: .ratio) ?? 1
        parentBased = try container.decodeIfPresent(Bool.self, forKey: .parentBased) ?? true
    }
}

extension OTLPLimits {
    enum CodingKeys: String, CodingKey {
        case attributeCountLimit, attributeValueLengthLimit, eventCountLimit, linkCountLimit, attributePerEventCountLimit, attributePerLinkCountLimit
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = OTLPLimits()
        attributeCountLimit = try container.decodeIfPresent(Int.self, forKey: .attributeCountLimit) ?? defaults.attributeCountLimit
        attributeValueLengthLimit = try container.decodeIfPresent(Int.self, forKey: .attributeValueLengthLimit)
        eventCountLimit = try container.decodeIfPresent(Int.self, forKey: .eventCountLimit) ?? defaults.eventCountLimit
        linkCountLimit = try container.decodeIfPresent(Int.self, forKey: .linkCountLimit) ?? defaults.linkCountLimit
        attributePerEventCountLimit = try container.decodeIfPresent(Int.self, forKey: .attributePerEventCountLimit) ?? defaults.attributePerEventCountLimit
        attributePerLinkCountLimit = try container.decodeIfPresent(Int.self, forKey: .attributePerLinkCountLimit) ?? defaults.attributePerLinkCountLimit
    }
}
