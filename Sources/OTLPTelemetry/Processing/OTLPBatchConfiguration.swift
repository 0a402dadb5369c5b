/// Batching settings (the specification's batching processor's), for both signals; defaults are the
/// specification's (``default``). Each setting has a documented range: ``OTLPTelemetryConfiguration/validate()``
/// rejects values outside it, and the pipeline clamps them into it (a NaN becomes the default).
public struct OTLPBatchConfiguration: Sendable, Equatable, Encodable, OTLPConfigurationDecodable {
    /// Items held at most; more are dropped. Default 2048, range 1...1,048,576.
    public var maxQueueSize: Int
    /// Items per export at most. Default 512, range 1...`maxQueueSize`.
    public var maxExportBatchSize: Int
    /// Longest wait, in seconds, between the arrival of an item and the export of the partial batch
    /// holding it. Default 5, range 0.001...86,400 (1 ms to one day).
    public var scheduleDelaySeconds: Double
    /// How long a flush and a shutdown (``OTLPTelemetry/forceFlush()``, ``OTLPTelemetry/shutdown()``) wait
    /// for the worker to complete its next batch, in seconds. Default 30, range 1...86,400.
    public var exportTimeoutSeconds: Double
    /// What a caller whose item finds the queue full does. Default ``WhenFull/drop`` (the specification's
    /// behaviour).
    public var whenFull: WhenFull
    /// How long a caller waits for room with ``WhenFull/wait``, in seconds; when it expires the item is
    /// dropped and counted (`queue_full_after_wait`). Default 5, range 0.001...86,400 (1 ms to one day).
    public var whenFullTimeoutSeconds: Double

    /// What a caller does with an item that finds the batching queue full.
    public enum WhenFull: String, Sendable, Encodable, OTLPConfigurationDecodable, CaseIterable {
        /// The item is dropped and counted (`queue_full`); the caller never waits: the specification's
        /// behaviour.
        case drop
        /// The caller waits until the worker has taken the queue (at most
        /// ``OTLPBatchConfiguration/whenFullTimeoutSeconds``), so that a burst slows its producers down instead
        /// of losing items: for command-line tools and batch jobs that must not lose telemetry. An item still
        /// without room when the wait expires, or when the pipeline shuts down, is dropped and counted
        /// (`queue_full_after_wait`, `shut_down`).
        case wait
    }

    /// The specification's defaults: what an omitted argument or JSON key means.
    public static let `default` = OTLPBatchConfiguration(
        maxQueueSize: 2048, maxExportBatchSize: 512, scheduleDelaySeconds: 5, exportTimeoutSeconds: 30, whenFull: .drop,
        whenFullTimeoutSeconds: 5)

    /// Settings with ``default``'s values unless given.
    public init(
        maxQueueSize: Int = OTLPBatchConfiguration.default.maxQueueSize,
        maxExportBatchSize: Int = OTLPBatchConfiguration.default.maxExportBatchSize,
        scheduleDelaySeconds: Double = OTLPBatchConfiguration.default.scheduleDelaySeconds,
        exportTimeoutSeconds: Double = OTLPBatchConfiguration.default.exportTimeoutSeconds,
        whenFull: WhenFull = OTLPBatchConfiguration.default.whenFull,
        whenFullTimeoutSeconds: Double = OTLPBatchConfiguration.default.whenFullTimeoutSeconds
    ) {
        self.maxQueueSize = maxQueueSize
        self.maxExportBatchSize = maxExportBatchSize
        self.scheduleDelaySeconds = scheduleDelaySeconds
        self.exportTimeoutSeconds = exportTimeoutSeconds
        self.whenFull = whenFull
        self.whenFullTimeoutSeconds = whenFullTimeoutSeconds
    }

    /// Accepted ``maxQueueSize`` values.
    package static var maxQueueSizeRange: ClosedRange<Int> { 1...(1 << 20) }
    /// Accepted ``scheduleDelaySeconds`` values: at least 1 ms, so the worker cannot spin.
    package static var scheduleDelaySecondsRange: ClosedRange<Double> { 0.001...86_400 }
    /// Accepted ``exportTimeoutSeconds`` values: at least 1 s, so a shutdown does not give up on a
    /// worker that is merely busy.
    package static var exportTimeoutSecondsRange: ClosedRange<Double> { 1...86_400 }
    /// Accepted ``whenFullTimeoutSeconds`` values.
    package static var whenFullTimeoutSecondsRange: ClosedRange<Double> { 0.001...86_400 }

    /// This configuration with every value brought into its range; a NaN becomes the default.
    package var clamped: Self {
        let queue = OTLPSettingClamp.clamp(maxQueueSize, to: Self.maxQueueSizeRange)
        return Self(
            maxQueueSize: queue, maxExportBatchSize: OTLPSettingClamp.clamp(maxExportBatchSize, to: 1...queue),
            scheduleDelaySeconds: OTLPSettingClamp.clamp(
                scheduleDelaySeconds, to: Self.scheduleDelaySecondsRange, default: Self.default.scheduleDelaySeconds),
            exportTimeoutSeconds: OTLPSettingClamp.clamp(
                exportTimeoutSeconds, to: Self.exportTimeoutSecondsRange, default: Self.default.exportTimeoutSeconds),
            whenFull: whenFull,
            whenFullTimeoutSeconds: OTLPSettingClamp.clamp(
                whenFullTimeoutSeconds, to: Self.whenFullTimeoutSecondsRange, default: Self.default.whenFullTimeoutSeconds))
    }

    /// Every value outside its range, as errors naming `prefix.key`.
    func violations(prefix: String) -> [OTLPConfigurationError] {
        [
            OTLPConfigurationError.check(maxQueueSize, in: Self.maxQueueSizeRange, "\(prefix)maxQueueSize"),
            Self.maxQueueSizeRange.contains(maxQueueSize)
                ? OTLPConfigurationError.check(
                    maxExportBatchSize, in: 1...maxQueueSize, "\(prefix)maxExportBatchSize", unit: " (\(prefix)maxQueueSize)")
                : OTLPConfigurationError.check(maxExportBatchSize, in: Self.maxQueueSizeRange, "\(prefix)maxExportBatchSize"),
            OTLPConfigurationError.check(
                scheduleDelaySeconds, in: Self.scheduleDelaySecondsRange, "\(prefix)scheduleDelaySeconds", unit: " seconds"),
            OTLPConfigurationError.check(
                exportTimeoutSeconds, in: Self.exportTimeoutSecondsRange, "\(prefix)exportTimeoutSeconds", unit: " seconds"),
            OTLPConfigurationError.check(
                whenFullTimeoutSeconds, in: Self.whenFullTimeoutSecondsRange, "\(prefix)whenFullTimeoutSeconds", unit: " seconds"),
        ].compactMap { $0 }
    }
}
