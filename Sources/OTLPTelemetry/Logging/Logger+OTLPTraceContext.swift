public import Logging
import OTLPWire
import Tracing

extension Logger.MetadataProvider {
    /// Puts the active span's IDs into the metadata of every log call: `trace_id` and `span_id`, in lowercase
    /// hex as W3C trace context writes them (the span of `ServiceContext.current`); nothing outside a span.
    ///
    /// ``OTLPTelemetry/bootstrap(logLevel:)`` installs it, so console lines say which trace they belong to. A
    /// program that bootstraps swift-log itself passes it to `LoggingSystem.bootstrap(_:metadataProvider:)`.
    /// The pipeline's log handler (``OTLPLogEmitter/logHandler(label:logLevel:metadataProvider:)``) keeps these two keys out of a record's attributes when they name the record's own
    /// span: the record carries them in its trace context fields.
    public static let otlpTraceContext = Logger.MetadataProvider {
        guard let spanContext = InstrumentationContext.current?.otlpSpanContext else { return [:] }
        return ["trace_id": .string(spanContext.traceID.hex), "span_id": .string(spanContext.spanID.hex)]
    }
}
