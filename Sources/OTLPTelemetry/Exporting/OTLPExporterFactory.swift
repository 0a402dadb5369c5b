public import OTLPWire

/// Makes the exporters that deliver spans and log records to a collector, as the configuration's `otlp`
/// section (``OTLPTelemetryConfiguration/otlp``) describes. OTLPTelemetry has no networking of its own: the
/// OTLPHTTP library's `OTLPHTTPExporterFactory` is the factory to pass to ``OTLPTelemetry/init(configuration:scope:resource:clock:idGenerator:exporterFactory:spanProcessors:logRecordProcessors:diagnostics:)``.
public protocol OTLPExporterFactory: Sendable {
    /// An exporter of `itemType` items (``OTLPScopedSpan`` or ``OTLPScopedLogRecord``) to `endpoint`, sending
    /// under `resource`, counting into `counters` and reporting to `diagnostics`.
    func makeExporter<Item: OTLPExportable>(
        for itemType: Item.Type, endpoint: OTLPExporterConfiguration.Resolved, resource: OTLPResource,
        counters: OTLPTelemetryCounters, diagnostics: @escaping @Sendable (String) -> Void
    ) -> any OTLPExporter<Item>
}
