import OTLPWire

/// Store and forward: the `otlp.spool` section. Every batch meant for the collector is written to a directory
/// first and uploaded from there, so telemetry survives outages, crashes and restarts (the OTLPHTTP library's
/// `OTLPHTTPExporterFactory` makes the spool's exporters).
///
/// ```json
/// { "otlp": { "endpoint": "https://collector.example.com:4318",
///             "spool": { "directory": "/var/spool/myapp-otlp", "maxBytes": 268435456, "gzip": true } } }
/// ```
public struct OTLPSpoolConfiguration: Sendable, Equatable, Encodable, OTLPConfigurationDecodable {
    /// The spool directory, created if missing; each signal uses a subdirectory of its own (`traces`, `logs`).
    /// One process at a time may use it.
    public var directory: String
    /// Most bytes the spool keeps, both signals together (each signal's subdirectory gets half). Past it the
    /// oldest file goes first and its items are counted as dropped (`spool_full`). Default 256 MiB, range
    /// 64 KiB to 1 TiB.
    public var maxBytes: Int
    /// How hard each spooled batch is made to survive a crash; `nil` (the default) takes the configuration's
    /// ``OTLPTelemetryConfiguration/durability``. `flush` survives the process being killed, `fsync` a power
    /// loss too.
    public var durability: OTLPDurability?
    /// Whether each record is stored gzip-compressed (default `false`). The spool then holds more telemetry
    /// in ``maxBytes`` (twice as much on random strings, more on repetitive ones), and an endpoint whose compression is gzip is sent each record as
    /// stored (compressed once, when it is spooled, rather than at each upload). The exporter's thread pays
    /// for the compression. Records of either kind are read back, so the setting may change between runs.
    public var gzip: Bool
    /// Whether each record is stored as one zstd frame (default `false`; with ``gzip`` too, zstd is used):
    /// smaller and faster than gzip; every endpoint is sent the request decompressed, compressed as its
    /// compression says. Records of every kind are read back, so the setting may change between runs.
    public var zstd: Bool
    /// The compression level (zlib's scale) of ``gzip`` records: 1 is fastest, 9 smallest. Default 1 (chosen by measurement: the Configuration article), range 1...9.
    public var gzipLevel: Int

    /// 256 MiB, the configuration's durability, records not compressed: what an omitted key means
    /// (`directory` has no default).
    public static let `default` = OTLPSpoolConfiguration(
        directory: "", maxBytes: 256 << 20, durability: nil, gzip: false, zstd: false, gzipLevel: OTLPGzip.defaultLevel)

    /// Accepted sizes: 64 KiB to 1 TiB.
    package static var maxBytesRange: ClosedRange<Int> { (64 << 10)...(1 << 40) }

    /// A spool in `directory` with ``default``'s values unless given.
    public init(
        directory: String, maxBytes: Int = OTLPSpoolConfiguration.default.maxBytes,
        durability: OTLPDurability? = OTLPSpoolConfiguration.default.durability, gzip: Bool = OTLPSpoolConfiguration.default.gzip,
        zstd: Bool = OTLPSpoolConfiguration.default.zstd, gzipLevel: Int = OTLPSpoolConfiguration.default.gzipLevel
    ) {
        self.gzipLevel = gzipLevel
        self.directory = directory
        self.maxBytes = maxBytes
        self.durability = durability
        self.gzip = gzip
        self.zstd = zstd
    }

    /// This configuration with ``maxBytes`` and ``gzipLevel`` brought into their ranges.
    package var clamped: OTLPSpoolConfiguration {
        var copy = self
        copy.gzipLevel = OTLPSettingClamp.clamp(gzipLevel, to: OTLPGzip.levelRange)
        copy.maxBytes = OTLPSettingClamp.clamp(maxBytes, to: Self.maxBytesRange)
        return copy
    }

    /// Every problem, as errors naming `prefix.key` (`otlp.spool.maxBytes`).
    func violations(prefix: String) -> [OTLPConfigurationError] {
        var problems: [OTLPConfigurationError] = []
        if directory.isEmpty {
            problems.append(OTLPConfigurationError(keyPath: "\(prefix)directory", message: "must name a directory"))
        }
        if let problem = OTLPConfigurationError.check(maxBytes, in: Self.maxBytesRange, "\(prefix)maxBytes", unit: " bytes") {
            problems.append(problem)
        }
        if let problem = OTLPConfigurationError.check(gzipLevel, in: OTLPGzip.levelRange, "\(prefix)gzipLevel") { problems.append(problem) }
        return problems
    }
}

// Decoding with every key but `directory` optional.
extension OTLPSpoolConfiguration {
    enum CodingKeys: String, CodingKey, CaseIterable { case directory, maxBytes, durability, gzip, zstd, gzipLevel }

    package init(configurationFrom decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try decoder.reportUnknownKeys(CodingKeys.self)
        directory = try container.decode(String.self, forKey: .directory)
        maxBytes = try container.decodeIntegerIfPresent(forKey: .maxBytes) ?? Self.default.maxBytes
        durability = try container.decodeIfPresent(OTLPDurability.self, forKey: .durability) ?? Self.default.durability
        gzip = try container.decodeIfPresent(Bool.self, forKey: .gzip) ?? Self.default.gzip
        zstd = try container.decodeIfPresent(Bool.self, forKey: .zstd) ?? Self.default.zstd
        gzipLevel = try container.decodeIntegerIfPresent(forKey: .gzipLevel) ?? Self.default.gzipLevel
    }
}
