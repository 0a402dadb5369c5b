public import Logging

extension OTLPLogEmitter {
    /// A swift-log handler for the logger `label` that emits through this emitter, at `logLevel` and above;
    /// `metadataProvider` adds metadata to every record.
    ///
    /// Each record carries the time of the call, the severity (swift-log levels mapped to the OpenTelemetry
    /// severity numbers: trace 1, debug 5, info 9, notice 10, warning 13, error 17, critical 21), the message as
    /// its body, the merged metadata (handler, provider, call) as attributes, the source location as `code.*`
    /// attributes, and the active span's trace context. An error given with the call
    /// (`logger.error("payment failed", error: error)`) becomes the OpenTelemetry exception attributes
    /// `exception.type` (the error's fully qualified type name) and `exception.message` (its description),
    /// which take the place of metadata of the same names
    /// ([semantic conventions](https://opentelemetry.io/docs/specs/semconv/exceptions/exceptions-logs/)).
    ///
    /// ```swift
    /// // Compiled copy: Tests/DocumentationExamples/OTLPTelemetry/OTLPTelemetryDocComments.swift
    /// func bootstrapLoggingOnly(emitter: OTLPLogEmitter) {
    ///     LoggingSystem.bootstrap { label in emitter.logHandler(label: label) }
    /// }
    /// ```
    public func logHandler(
        label: String, logLevel: Logger.Level = .info, metadataProvider: Logger.MetadataProvider? = nil
    ) -> any LogHandler {
        OTLPLogHandler(label: label, emitter: self, logLevel: logLevel, metadataProvider: metadataProvider, clock: clock)
    }
}
