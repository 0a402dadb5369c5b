public import OTLPTelemetry

/// When a session ends: the `telemetry.sessions` section of an app configuration.
///
/// ```json
/// { "telemetry": { "sessions": { "enabled": true, "inactivityTimeoutSeconds": 1800, "maxLengthSeconds": 14400 } } }
/// ```
public struct OTLPSessionConfiguration: Sendable, Equatable, Encodable, OTLPConfigurationDecodable {
    /// Whether sessions are kept at all. Off, no session manager is made and nothing is added to any span
    /// or record. Default `true`.
    public var enabled: Bool
    /// A session ends after this long without activity (a span started, a record emitted, the app coming to
    /// the foreground). Default 1,800 s (30 minutes), range 1 s to 30 days.
    public var inactivityTimeoutSeconds: Double
    /// A session ends this long after it started, active or not. Default 14,400 s (4 hours), range
    /// 1 s to 30 days.
    public var maxLengthSeconds: Double

    /// On, 30 minutes of inactivity, 4 hours at most: what an omitted key means.
    public static let `default` = OTLPSessionConfiguration(enabled: true, inactivityTimeoutSeconds: 1_800, maxLengthSeconds: 14_400)

    /// Accepted durations: 1 second to 30 days.
    package static var secondsRange: ClosedRange<Double> { 1...(30 * 86_400) }

    /// A configuration with ``default``'s values unless given.
    public init(
        enabled: Bool = OTLPSessionConfiguration.default.enabled,
        inactivityTimeoutSeconds: Double = OTLPSessionConfiguration.default.inactivityTimeoutSeconds,
        maxLengthSeconds: Double = OTLPSessionConfiguration.default.maxLengthSeconds
    ) {
        self.enabled = enabled
        self.inactivityTimeoutSeconds = inactivityTimeoutSeconds
        self.maxLengthSeconds = maxLengthSeconds
    }

    /// This configuration with both durations brought into ``secondsRange`` (a NaN becomes the default).
    package var clamped: OTLPSessionConfiguration {
        OTLPSessionConfiguration(
            enabled: enabled,
            inactivityTimeoutSeconds: OTLPSettingClamp.clamp(
                inactivityTimeoutSeconds, to: Self.secondsRange, default: Self.default.inactivityTimeoutSeconds),
            maxLengthSeconds: OTLPSettingClamp.clamp(maxLengthSeconds, to: Self.secondsRange, default: Self.default.maxLengthSeconds))
    }
}

extension OTLPSessionConfiguration {
    /// Every problem, as errors naming `prefix.key` (`telemetry.sessions.maxLengthSeconds`): a duration out of
    /// ``secondsRange``, or a maximum length shorter than the inactivity timeout.
    func violations(prefix: String) -> [OTLPConfigurationError] {
        var problems: [OTLPConfigurationError] = []
        for (key, value) in [("inactivityTimeoutSeconds", inactivityTimeoutSeconds), ("maxLengthSeconds", maxLengthSeconds)]
        where !Self.secondsRange.contains(value) {
            problems.append(
                OTLPConfigurationError(
                    keyPath: prefix + key,
                    message: "\(value) is outside \(Int(Self.secondsRange.lowerBound))...\(Int(Self.secondsRange.upperBound)) seconds"))
        }
        if problems.isEmpty, maxLengthSeconds < inactivityTimeoutSeconds {
            problems.append(
                OTLPConfigurationError(keyPath: prefix + "maxLengthSeconds", message: "is shorter than inactivityTimeoutSeconds"))
        }
        return problems
    }
}

// Decoding with every key optional; unknown keys are reported with their key path.
extension OTLPSessionConfiguration {
    enum CodingKeys: String, CodingKey, CaseIterable { case enabled, inactivityTimeoutSeconds, maxLengthSeconds }

    package init(configurationFrom decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try decoder.reportUnknownKeys(CodingKeys.self)
        enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled) ?? Self.default.enabled
        inactivityTimeoutSeconds =
            try container.decodeIfPresent(Double.self, forKey: .inactivityTimeoutSeconds) ?? Self.default.inactivityTimeoutSeconds
        maxLengthSeconds = try container.decodeIfPresent(Double.self, forKey: .maxLengthSeconds) ?? Self.default.maxLengthSeconds
    }
}
