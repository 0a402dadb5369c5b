public import OTLPTelemetry
public import OTLPWire

/// Makes ``OTLPHTTPExporter``s for `OTLPTelemetry`: pass it as `exporterFactory`, and the
/// configuration's `otlp` section (from code, the JSON file or the `OTEL_*` environment variables) delivers
/// both signals to the collector: directly (``OTLPHTTPExporter``), or through the spool of `otlp.spool`
/// (store and forward, <doc:TheSpool>).
///
/// ```swift
/// // Compiled copy: Tests/DocumentationExamples/OTLPHTTP/OTLPHTTPDocComments.swift
/// func deliverWhereTheEnvironmentSays() -> OTLPTelemetry {
///     let (configuration, warnings) = OTLPTelemetryConfiguration.default.applyingEnvironment()
///     warnings.forEach { print($0) }
///     return OTLPTelemetry(configuration: configuration, exporterFactory: OTLPHTTPExporterFactory())
/// }
/// ```
public struct OTLPHTTPExporterFactory: OTLPExporterFactory {
    /// Waits between attempts of every exporter made.
    package var retryPolicy: OTLPHTTPRetryPolicy

    /// A factory whose exporters retry as `retryPolicy` says (default ``OTLPHTTPRetryPolicy/default``).
    public init(retryPolicy: OTLPHTTPRetryPolicy = .default) {
        self.retryPolicy = retryPolicy
    }

    public func makeExporter<Item: OTLPExportable>(
        for itemType: Item.Type, endpoint: OTLPExporterConfiguration.Resolved, resource: OTLPResource,
        counters: OTLPTelemetryCounters, diagnostics: @escaping @Sendable (String) -> Void
    ) -> any OTLPExporter<Item> {
        if endpoint.spool != nil {
            return OTLPSpoolExporter<Item>(
                endpoint: endpoint, resource: resource, counters: counters, retryPolicy: retryPolicy, diagnostics: diagnostics)
        }
        return OTLPHTTPExporter<Item>(
            endpoint: endpoint, resource: resource, counters: counters, retryPolicy: retryPolicy, diagnostics: diagnostics)
    }
}
