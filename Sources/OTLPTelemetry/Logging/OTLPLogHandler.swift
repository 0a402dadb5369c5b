package import Logging
package import OTLPWire
import Tracing

/// A swift-log `LogHandler` that turns log calls into OTLP log records.
///
/// Each record carries the time of the call, the severity (swift-log levels mapped to the OpenTelemetry
/// severity numbers: trace 1, debug 5, info 9, notice 10, warning 13, error 17, critical 21), the message as
/// its body, the merged metadata (handler, provider, call) as attributes, the source location as
/// `code.*` attributes, and the active span's trace context. An error given with the call
/// (`logger.error("payment failed", error: error)`) becomes the OpenTelemetry exception attributes
/// `exception.type` (the error's fully qualified type name) and `exception.message` (its description),
/// which take the place of metadata of the same names
/// ([semantic conventions](https://opentelemetry.io/docs/specs/semconv/exceptions/exceptions-logs/)).
///
/// Made by ``OTLPLogEmitter/logHandler(label:logLevel:metadataProvider:)``.
package struct OTLPLogHandler: LogHandler {
    /// The logger's label (what `Logger(label:)` was given).
    package let label: String
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?
    package var logLevel: Logger.Level = .info
    let emitter: OTLPLogEmitter
    let clock: any OTLPClock

    /// A handler for the logger `label` that emits through `emitter`, at `logLevel` and above.
    package init(
        label: String, emitter: OTLPLogEmitter, logLevel: Logger.Level = .info, metadataProvider: Logger.MetadataProvider? = nil,
        clock: any OTLPClock = OTLPSystemClock()
    ) {
        self.label = label
        self.emitter = emitter
        self.logLevel = logLevel
        self.metadataProvider = metadataProvider
        self.clock = clock
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let callMetadata = event.metadata { merged.merge(callMetadata) { $1 } }
        if merged["trace_id"] != nil || merged["span_id"] != nil, let spanContext = InstrumentationContext.current?.otlpSpanContext {
            // The record carries the active span's IDs in its own fields (the emitter sets them): the copies
            // a metadata provider adds (`Logger.MetadataProvider.otlpTraceContext`) are not repeated as
            // attributes.
            if merged["trace_id"] == .string(spanContext.traceID.hex) { merged["trace_id"] = nil }
            if merged["span_id"] == .string(spanContext.spanID.hex) { merged["span_id"] = nil }
        }
        if let error = event.error {
            merged["exception.type"] = .string(String(reflecting: type(of: error)))
            merged["exception.message"] = .string(String(describing: error))
        }
        var attributes = merged.sorted { $0.key < $1.key }.map { OTLPAttribute($0.key, $0.value.otlpValue) }
        attributes.append(OTLPAttribute("code.file.path", .string(event.file)))
        attributes.append(OTLPAttribute("code.function.name", .string(event.function)))
        attributes.append(OTLPAttribute("code.line.number", .int(Int64(event.line))))
        if !label.isEmpty { attributes.append(OTLPAttribute("log.logger", .string(label))) }
        let (severity, text) = Self.severity(event.level)
        let now = clock.nowUnixNano()
        emitter.emit(
            OTLPLogRecord(
                timeUnixNano: now, observedTimeUnixNano: now, severity: severity, severityText: text,
                body: .string(event.message.description), attributes: attributes))
    }

    static func severity(_ level: Logger.Level) -> (OTLPSeverity, String) {
        switch level {
        case .trace: (.trace, "TRACE")
        case .debug: (.debug, "DEBUG")
        case .info: (.info, "INFO")
        case .notice: (OTLPSeverity(rawValue: 10), "NOTICE")
        case .warning: (.warn, "WARN")
        case .error: (.error, "ERROR")
        case .critical: (.fatal, "CRITICAL")
        }
    }
}

extension Logger.MetadataValue {
    /// Strings and string-convertibles become strings, arrays arrays, dictionaries key/value lists.
    var otlpValue: OTLPAttributeValue {
        switch self {
        case .string(let value): .string(value)
        case .stringConvertible(let value): .string(value.description)
        case .array(let values): .array(values.map(\.otlpValue))
        case .dictionary(let values): .keyValueList(values.sorted { $0.key < $1.key }.map { OTLPAttribute($0.key, $0.value.otlpValue) })
        }
    }
}
